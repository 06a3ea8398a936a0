import { Keypair, type Asset } from '@stellar/stellar-sdk';
import { balanceOf, type LedgerAccount, type LedgerBalance } from '../clients/ledger-api';
import type { Executor } from '../db/client';
import type { IdempotencyClaim } from '../db/repositories/idempotency.repository';
import { AppError } from '../errors/app-error';
import { fromLedgerError } from './ledger-error-map';
import type { LedgerJournal, LedgerWrite } from './ledger-journal';

export type { LedgerAccount, LedgerBalance, LedgerWrite };

/**
 * The ledger as the use cases see it: the token's writes (each one a journal entry, exactly once)
 * and reads of accounts. Use cases hand over a wallet's secret, never a Stellar object, and get
 * the service's AppErrors back, never the client's: nothing above src/ledger/ imports the SDK's
 * operations or the ledger API's clients.
 */
export class TokenLedger {
  constructor(
    private readonly journal: LedgerJournal,
    private readonly tokenCode: string,
  ) {}

  /** The token, once the ledger is ready (503 while it is not). */
  async asset(): Promise<Asset> {
    const ledger = await this.journal.ready().catch((err: unknown) => {
      throw err instanceof AppError ? err : new AppError('UPSTREAM_UNAVAILABLE', 'Ledger unavailable, try again later');
    });
    return ledger.asset;
  }

  /** An account's XLM and `asset` balances, or undefined when it is not on the ledger. */
  async account(publicKey: string, asset: Asset): Promise<LedgerAccount | undefined> {
    return this.journal.client.loadAccount(publicKey, asset).catch((err: unknown) => {
      throw fromLedgerError(err, this.tokenCode);
    });
  }

  /** The account's token line, undefined when it does not trust the token. */
  tokenLine(account: LedgerAccount, asset: Asset): LedgerBalance | undefined {
    return balanceOf(account, asset);
  }

  transfer(input: { userId: string; walletSecret: string; to: string; stroops: bigint; idempotency?: IdempotencyClaim }): Promise<LedgerWrite> {
    return this.journal.transfer({ ...input, wallet: Keypair.fromSecret(input.walletSecret) });
  }

  mint(input: { userId: string; to: string; stroops: bigint; idempotency?: IdempotencyClaim }): Promise<LedgerWrite> {
    return this.journal.mint(input);
  }

  mintForPayment(
    input: { reference: string; userId: string; to: string; stroops: bigint; waitMs: number },
    consume: (tx: Executor) => Promise<boolean>,
  ): Promise<LedgerWrite | undefined> {
    return this.journal.mintForPayment(input, consume);
  }

  clawback(
    input: { reversalId: string; userId: string; from: string; stroops: bigint; waitMs: number },
    claim: (tx: Executor, entryId: string) => Promise<boolean>,
  ): Promise<LedgerWrite | undefined> {
    return this.journal.clawback(input, claim);
  }

  issue(stroops: bigint, idempotency?: IdempotencyClaim): Promise<LedgerWrite> {
    return this.journal.issue(stroops, idempotency);
  }

  activate(input: { userId: string; walletSecret: string; fresh: boolean; startingXlm: string; waitMs: number }): Promise<LedgerWrite | undefined> {
    return this.journal.activate({ ...input, wallet: Keypair.fromSecret(input.walletSecret) });
  }

  current(entryId: string): Promise<LedgerWrite> {
    return this.journal.current(entryId);
  }
}

/** A new wallet's key pair, as strings: the secret is sealed at once by the caller. */
export function newWalletKeys(): { publicKey: string; secret: string } {
  const pair = Keypair.random();
  return { publicKey: pair.publicKey(), secret: pair.secret() };
}
