import { Asset, Horizon, type Transaction, type FeeBumpTransaction } from '@stellar/stellar-sdk';
import axios from 'axios';
import type { z } from 'zod';
import {
  accountSchema,
  failureSchema,
  feeStatsSchema,
  paymentPageSchema,
  rootSchema,
  submitSchema,
  transactionSchema,
} from './horizon-schemas';
import { LedgerIndeterminateError, LedgerRejectedError, LedgerUnavailableError } from './ledger-errors';

export interface StellarClientOptions {
  horizonUrl: string;
  networkPassphrase: string;
  /** How long one submission may take before its outcome is treated as unknown. */
  submitTimeoutMs?: number;
  /** How long a read (account, transaction, root) may take before the ledger counts as unavailable. Default 10000. */
  readTimeoutMs?: number;
}

export interface LedgerBalance {
  assetType: string;
  assetCode: string | undefined;
  assetIssuer: string | undefined;
  balance: string;
  limit: string | undefined;
}

export interface LedgerAccount {
  id: string;
  sequence: string;
  balances: LedgerBalance[];
  /** Reserves: trustlines and signers, reserves this account pays for others, reserves others pay for it. */
  subentryCount: number;
  numSponsoring: number;
  numSponsored: number;
}

/** Horizon's /fee_stats, per operation in stroops, as bigints. */
export interface FeeStats {
  lastLedger: number;
  lastLedgerBaseFee: bigint;
  /** Operations in the last ledger over its limit, 0..1. */
  capacityUsage: number;
  /** What transactions of recent ledgers were charged per operation, by percentile (p10..p99). */
  feeCharged: Record<string, bigint>;
  maxFee: Record<string, bigint>;
}

export interface LedgerPayment {
  /** The operation's id. */
  id: string;
  hash: string;
  from: string;
  to: string;
  /** 7-decimal string. */
  amount: string;
}

export interface FoundTransaction {
  /** The hash of the envelope that applied (a fee bump's own hash when it was one). */
  hash: string;
  successful: boolean;
  ledger: number;
  feeCharged: bigint;
}

export interface SubmitResult {
  hash: string;
  ledger: number;
  /** Stroops the network charged (what the fee source paid). */
  feeCharged: bigint;
}

/**
 * The service's one door to the Stellar network, over Horizon.Server exactly as against the real
 * Horizon. Answers are validated; failures become LedgerUnavailableError (retry later),
 * LedgerIndeterminateError (check the hash) or LedgerRejectedError (Stellar's result codes).
 */
export class StellarClient {
  readonly server: Horizon.Server;
  readonly networkPassphrase: string;
  private readonly submitTimeoutMs: number;

  constructor(private readonly options: StellarClientOptions) {
    this.server = new Horizon.Server(options.horizonUrl, { allowHttp: options.horizonUrl.startsWith('http://') });
    this.networkPassphrase = options.networkPassphrase;
    this.submitTimeoutMs = options.submitTimeoutMs ?? 30_000;
    // Found by tests/faults/ledger-faults.test.ts: the SDK's reads have no timeout at all, so a
    // Horizon that accepts connections and never answers held check-balance, every transfer and
    // /readyz open forever. Reads now fail as LedgerUnavailableError (503) after this long;
    // submissions keep their own deadline (submitTimeoutMs) and indeterminate-outcome handling.
    this.server.httpClient.defaults.timeout = options.readTimeoutMs ?? 10_000;
  }

  /** The account, or undefined when it does not exist on the ledger. */
  async loadAccount(publicKey: string): Promise<LedgerAccount | undefined> {
    const account = await this.readOptional('account', () => this.server.accounts().accountId(publicKey).call(), accountSchema);
    if (!account) return undefined;
    return {
      id: account.id,
      sequence: account.sequence,
      subentryCount: account.subentry_count,
      numSponsoring: account.num_sponsoring,
      numSponsored: account.num_sponsored,
      balances: account.balances.map((b) => ({
        assetType: b.asset_type,
        assetCode: b.asset_code,
        assetIssuer: b.asset_issuer,
        balance: b.balance,
        limit: b.limit,
      })),
    };
  }

  /** The balance line of an asset, or undefined when the account holds no trustline for it. */
  static balanceOf(account: LedgerAccount, asset: Asset): LedgerBalance | undefined {
    return account.balances.find((b) =>
      asset.isNative() ? b.assetType === 'native' : b.assetCode === asset.getCode() && b.assetIssuer === asset.getIssuer(),
    );
  }

  /**
   * Submits a signed transaction once. Only two answers are clear: success, and Horizon's 400
   * refusal with result codes (LedgerRejectedError). A connection that could not be opened never
   * carried the envelope (LedgerUnavailableError). Anything after the envelope may have left this
   * process (timeout, 5xx, reset, an unreadable body) is LedgerIndeterminateError: the transaction
   * may still apply, so the caller looks the hash up and only ever resubmits these same bytes.
   */
  async submit(tx: Transaction | FeeBumpTransaction): Promise<SubmitResult> {
    const hash = tx.hash().toString('hex');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new LedgerIndeterminateError(hash)), this.submitTimeoutMs);
    });
    try {
      const raw = await Promise.race([this.server.submitTransaction(tx, { skipMemoRequiredCheck: true }), timeout]);
      const parsed = submitSchema.safeParse(raw);
      if (!parsed.success) throw new LedgerIndeterminateError(hash);
      return { hash: parsed.data.hash, ledger: parsed.data.ledger, feeCharged: parsed.data.fee_charged };
    } catch (err) {
      if (err instanceof LedgerIndeterminateError) throw err;
      if (httpStatusOf(err) === 400) {
        const failure = failureSchema.safeParse(responseDataOf(err));
        if (failure.success) throw rejection(failure.data.extras.result_codes, 'innerTransaction' in tx);
      }
      if (httpStatusOf(err) === undefined && neverConnected(err)) throw unavailable(err);
      throw new LedgerIndeterminateError(hash);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The newest ledger this Horizon has ingested, with its close time. Horizon ingests ledgers in
   * order, so a hash absent from it after this ledger is absent from every ledger up to it.
   */
  async latestLedger(): Promise<{ sequence: number; closedAt: Date }> {
    const root = await this.read('root', () => this.server.root(), rootSchema);
    return { sequence: root.history_latest_ledger, closedAt: new Date(root.history_latest_ledger_closed_at) };
  }

  /**
   * A transaction by hash: applied (successful), failed on the ledger, or unknown (undefined).
   * Found by its inner hash too, for a fee bump; `hash` is then the fee bump's own.
   */
  async findTransaction(hash: string): Promise<FoundTransaction | undefined> {
    const found = await this.readOptional('transaction', () => this.server.transactions().transaction(hash).call(), transactionSchema);
    if (!found) return undefined;
    return { hash: found.fee_bump_transaction?.hash ?? found.hash, successful: found.successful, ledger: found.ledger_attr, feeCharged: found.fee_charged };
  }

  /** Horizon's fee statistics of recent ledgers (what bids are being charged). */
  async feeStats(): Promise<FeeStats> {
    const stats = await this.read('fee stats', () => this.server.feeStats(), feeStatsSchema);
    return {
      lastLedger: stats.last_ledger,
      lastLedgerBaseFee: stats.last_ledger_base_fee,
      capacityUsage: stats.ledger_capacity_usage,
      feeCharged: stats.fee_charged,
      maxFee: stats.max_fee,
    };
  }

  /**
   * Every successful payment of `asset` to or from an account, oldest first (paged through
   * Horizon's /accounts/:id/payments). For the audit, which matches them to the journal.
   */
  async tokenPaymentsOf(publicKey: string, asset: Asset): Promise<LedgerPayment[]> {
    const found: LedgerPayment[] = [];
    let cursor = '';
    for (;;) {
      const page = await this.readOptional('payments page', () => this.server.payments().forAccount(publicKey).order('asc').limit(200).cursor(cursor).call(), paymentPageSchema);
      if (!page) return found;
      for (const p of page.records) {
        if (p.type === 'payment' && p.transaction_successful !== false && p.asset_code === asset.getCode() && p.asset_issuer === asset.getIssuer()) {
          found.push({ id: p.id, hash: p.transaction_hash, from: p.from!, to: p.to!, amount: p.amount! });
        }
      }
      if (page.records.length < 200) return found;
      cursor = page.records.at(-1)!.paging_token;
    }
  }

  /** Funds a new account through a friendbot (the sandbox's, or testnet's). */
  async fundWithFriendbot(friendbotUrl: string, publicKey: string): Promise<void> {
    const url = new URL(friendbotUrl);
    url.searchParams.set('addr', publicKey);
    const res = await axios.get(url.toString(), { timeout: 30_000, validateStatus: () => true }).catch((err: unknown) => {
      throw unavailable(err);
    });
    if (res.status >= 500) throw new LedgerUnavailableError(`Friendbot answered ${res.status}`);
    // 400 from a friendbot means the account already exists: that is the state we wanted.
  }

  /**
   * One read from Horizon, its answer validated. Horizon unreachable, failing or answering what the
   * schema does not describe: LedgerUnavailableError (try again later). 404: undefined.
   */
  private async readOptional<S extends z.ZodType>(what: string, call: () => Promise<unknown>, schema: S): Promise<z.output<S> | undefined> {
    let raw: unknown;
    try {
      raw = await call();
    } catch (err) {
      if (httpStatusOf(err) === 404) return undefined;
      throw unavailable(err);
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new LedgerUnavailableError(`Ledger answered an unreadable ${what}`);
    return parsed.data;
  }

  /** A read of something Horizon always has (its root, its fee stats): a 404 is unavailable too. */
  private async read<S extends z.ZodType>(what: string, call: () => Promise<unknown>, schema: S): Promise<z.output<S>> {
    const found = await this.readOptional(what, call, schema);
    if (found === undefined) throw new LedgerUnavailableError(`Ledger has no ${what}`);
    return found;
  }

  async isReachable(): Promise<boolean> {
    try {
      await this.server.root();
      return true;
    } catch {
      return false;
    }
  }
}

/**
 * A fee bump refused because of its inner transaction carries the inner codes (what the
 * transaction does); one refused at the outer level is about its fee source (who pays).
 */
function rejection(codes: z.infer<typeof failureSchema>['extras']['result_codes'], feeBump: boolean): LedgerRejectedError {
  if (codes.inner_transaction) return new LedgerRejectedError(codes.inner_transaction.transaction, codes.inner_transaction.operations ?? []);
  return new LedgerRejectedError(codes.transaction, codes.operations ?? [], feeBump);
}

function httpStatusOf(err: unknown): number | undefined {
  const e = err as { response?: { status?: unknown }; status?: unknown };
  if (typeof e?.response?.status === 'number') return e.response.status;
  return undefined;
}

function responseDataOf(err: unknown): unknown {
  const e = err as { response?: { data?: unknown } };
  return e?.response?.data ?? e?.response;
}

/** Errors that mean no connection was ever opened, so no byte of the request left this process. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function neverConnected(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && NEVER_CONNECTED.has(code);
}

function unavailable(err: unknown): LedgerUnavailableError {
  const code = (err as { code?: unknown })?.code;
  return new LedgerUnavailableError(`Ledger unavailable${typeof code === 'string' ? ` (${code})` : ''}`);
}
