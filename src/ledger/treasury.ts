import type { Asset } from '@stellar/stellar-sdk';
import { balanceOf, type LedgerAccount, type LedgerApi } from '../clients/ledger-api';
import { parseTokenAmount } from '../domain/amounts';
import { CachedReading } from './cached-reading';
import { BASE_FEE_STROOPS } from './fee-policy';

/** Stellar's base reserve: 0.5 XLM per account half-entry, in stroops. */
export const BASE_RESERVE_STROOPS = 5_000_000n;
/** Reserves a new wallet costs its sponsor: the account (2) and its token trustline (1). */
const RESERVES_PER_WALLET = 3n;
/** An activation's operations (begin, create, trust, end) plus its fee bump, at the base fee. */
const FEE_PER_WALLET = 5n * BASE_FEE_STROOPS;

export interface TreasuryReading {
  /** The distribution account's XLM, in stroops. */
  xlmStroops: bigint;
  /** XLM above its minimum balance (what sponsoring and fees can still use), in stroops. */
  spendableXlmStroops: bigint;
  tokenStroops: bigint;
  /** Reserves the distribution account pays for wallets and channels (its num_sponsoring). */
  reservesSponsored: number;
  /** New wallets the spendable XLM still covers. */
  signupsLeft: bigint;
  /** Fewer signups left than MIN_SIGNUPS_LEFT: top the distribution account up. */
  low: boolean;
}

/**
 * What the distribution account can still pay for: it sponsors every wallet's and channel's
 * reserves and pays every fee, so its XLM is the service's runway. Read from the ledger API, at most
 * once per `cacheMs`.
 */
export class Treasury {
  private readonly reading: CachedReading<TreasuryReading>;

  constructor(
    private readonly client: LedgerApi,
    private readonly account: () => Promise<{ publicKey: string; asset: Asset }>,
    private readonly options: { walletStartingXlm: string; minSignupsLeft: number; cacheMs: number },
  ) {
    this.reading = new CachedReading(() => this.load(), options.cacheMs);
  }

  /** The latest reading; undefined while the ledger or the account cannot be read. */
  read(): Promise<TreasuryReading | undefined> {
    return this.reading.read();
  }

  private async load(): Promise<TreasuryReading | undefined> {
    const { publicKey, asset } = await this.account();
    const account = await this.client.loadAccount(publicKey, asset);
    if (!account) return undefined;
    const xlmStroops = stroopsOf(account, undefined);
    const spendableXlmStroops = xlmStroops - minimumBalance(account);
    const perWallet = RESERVES_PER_WALLET * BASE_RESERVE_STROOPS + (parseTokenAmount(this.options.walletStartingXlm) ?? 0n) + FEE_PER_WALLET;
    const signupsLeft = spendableXlmStroops > 0n ? spendableXlmStroops / perWallet : 0n;
    return {
      xlmStroops,
      spendableXlmStroops,
      tokenStroops: stroopsOf(account, asset),
      reservesSponsored: account.numSponsoring,
      signupsLeft,
      low: signupsLeft < BigInt(this.options.minSignupsLeft),
    };
  }
}

/** Stellar's minimum balance: (2 + subentries + reserves sponsored for others − reserves others sponsor) base reserves. */
export function minimumBalance(account: Pick<LedgerAccount, 'subentryCount' | 'numSponsoring' | 'numSponsored'>): bigint {
  return BigInt(2 + account.subentryCount + account.numSponsoring - account.numSponsored) * BASE_RESERVE_STROOPS;
}

function stroopsOf(account: LedgerAccount, asset: Asset | undefined): bigint {
  const line = balanceOf(account, asset);
  // Horizon writes balances with exactly 7 decimals (the client checks it): the digits are the stroops.
  return line ? BigInt(line.balance.replace('.', '')) : 0n;
}
