import { Keypair, type Asset } from '@stellar/stellar-sdk';
import { balanceOf, type LedgerAccount, type LedgerApi, type LedgerBalance } from '../clients/ledger-api';
import { AppError } from '../errors/app-error';
import type { LedgerBootstrap } from './ledger-bootstrap';
import { fromLedgerError } from './ledger-error-map';

export type { LedgerAccount, LedgerBalance };

/**
 * What use cases read of the network: the token and accounts' balances. They get the service's
 * AppErrors back, never the client's, and never a Stellar object beyond the token: nothing above
 * src/ledger/ imports the SDK's operations or the network's clients. Writes go through the journal
 * (JournalWrites).
 */
export class TokenReads {
  constructor(
    private readonly bootstrap: LedgerBootstrap,
    private readonly client: LedgerApi,
    private readonly tokenCode: string,
  ) {}

  /** The token, once the network is ready (503 while it is not). */
  async asset(): Promise<Asset> {
    return this.bootstrap.asset().catch((err: unknown) => {
      throw err instanceof AppError ? err : new AppError('UPSTREAM_UNAVAILABLE', 'Ledger unavailable, try again later');
    });
  }

  /** An account's XLM and `asset` balances, or undefined when it is not on the network. */
  async account(publicKey: string, asset: Asset): Promise<LedgerAccount | undefined> {
    return this.client.loadAccount(publicKey, asset).catch((err: unknown) => {
      throw fromLedgerError(err, this.tokenCode);
    });
  }

  /** Several accounts' balances in the order asked, read together (one call through RPC). */
  async accounts(publicKeys: readonly string[], asset: Asset): Promise<(LedgerAccount | undefined)[]> {
    return this.client.loadAccounts(publicKeys, asset).catch((err: unknown) => {
      throw fromLedgerError(err, this.tokenCode);
    });
  }

  /** The account's token line, undefined when it does not trust the token. */
  tokenLine(account: LedgerAccount, asset: Asset): LedgerBalance | undefined {
    return balanceOf(account, asset);
  }
}

/** A new wallet's key pair, as strings: the secret is sealed at once by the caller. */
export function newWalletKeys(): { publicKey: string; secret: string } {
  const pair = Keypair.random();
  return { publicKey: pair.publicKey(), secret: pair.secret() };
}
