// Over 300 lines on purpose: the one door to Horizon (one class per outside system): every call,
// its answer schema and the mapping of its failures to the three ledger errors.
import { Asset, Horizon, type Transaction, type FeeBumpTransaction } from '@stellar/stellar-sdk';
import axios from 'axios';
import { z } from 'zod';
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

const balanceSchema = z.looseObject({
  asset_type: z.string(),
  balance: z.string().regex(/^-?\d+\.\d{7}$/),
  asset_code: z.string().optional(),
  asset_issuer: z.string().optional(),
  limit: z.string().optional(),
});
const accountSchema = z.looseObject({
  id: z.string(),
  sequence: z.string().regex(/^\d+$/),
  balances: z.array(balanceSchema),
  subentry_count: z.number().int().default(0),
  num_sponsoring: z.number().int().default(0),
  num_sponsored: z.number().int().default(0),
});
const stroops = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]).transform((v) => BigInt(v));
const submitSchema = z.looseObject({ hash: z.string(), ledger: z.number(), fee_charged: stroops.default(0n) });
// The SDK's call() turns linked fields into functions and keeps the value as `<name>_attr`.
const transactionSchema = z.looseObject({
  hash: z.string(),
  ledger_attr: z.number(),
  successful: z.boolean(),
  fee_charged: stroops.default(0n),
  // Looked up by its inner hash, a fee bump is named by that hash; its own is here.
  fee_bump_transaction: z.looseObject({ hash: z.string() }).optional(),
});
const distributionSchema = z.record(z.string(), stroops);
const feeStatsSchema = z.looseObject({
  last_ledger: z.coerce.number().int(),
  last_ledger_base_fee: stroops,
  ledger_capacity_usage: z.coerce.number(),
  fee_charged: distributionSchema,
  max_fee: distributionSchema,
});
const paymentPageSchema = z.looseObject({
  records: z.array(
    z.looseObject({
      id: z.string(),
      paging_token: z.string(),
      type: z.string(),
      transaction_hash: z.string(),
      transaction_successful: z.boolean().optional(),
      from: z.string().optional(),
      to: z.string().optional(),
      amount: z.string().optional(),
      asset_code: z.string().optional(),
      asset_issuer: z.string().optional(),
    }),
  ),
});
const rootSchema = z.looseObject({ history_latest_ledger: z.number().int(), history_latest_ledger_closed_at: z.iso.datetime({ offset: true }) });
const codesSchema = z.looseObject({ transaction: z.string(), operations: z.array(z.string()).optional() });
const failureSchema = z.looseObject({
  extras: z.looseObject({
    result_codes: codesSchema.extend({ inner_transaction: codesSchema.optional() }),
  }),
});

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
    let raw: unknown;
    try {
      raw = await this.server.accounts().accountId(publicKey).call();
    } catch (err) {
      if (httpStatusOf(err) === 404) return undefined;
      throw unavailable(err);
    }
    const parsed = accountSchema.safeParse(raw);
    if (!parsed.success) throw new LedgerUnavailableError('Ledger answered an unreadable account');
    return {
      id: parsed.data.id,
      sequence: parsed.data.sequence,
      subentryCount: parsed.data.subentry_count,
      numSponsoring: parsed.data.num_sponsoring,
      numSponsored: parsed.data.num_sponsored,
      balances: parsed.data.balances.map((b) => ({
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
    let raw: unknown;
    try {
      raw = await this.server.root();
    } catch (err) {
      throw unavailable(err);
    }
    const parsed = rootSchema.safeParse(raw);
    if (!parsed.success) throw new LedgerUnavailableError('Ledger answered an unreadable root');
    return { sequence: parsed.data.history_latest_ledger, closedAt: new Date(parsed.data.history_latest_ledger_closed_at) };
  }

  /**
   * A transaction by hash: applied (successful), failed on the ledger, or unknown (undefined).
   * Found by its inner hash too, for a fee bump; `hash` is then the fee bump's own.
   */
  async findTransaction(hash: string): Promise<FoundTransaction | undefined> {
    try {
      const raw = await this.server.transactions().transaction(hash).call();
      const parsed = transactionSchema.parse(raw);
      return { hash: parsed.fee_bump_transaction?.hash ?? parsed.hash, successful: parsed.successful, ledger: parsed.ledger_attr, feeCharged: parsed.fee_charged };
    } catch (err) {
      if (httpStatusOf(err) === 404) return undefined;
      throw unavailable(err);
    }
  }

  /** Horizon's fee statistics of recent ledgers (what bids are being charged). */
  async feeStats(): Promise<FeeStats> {
    let raw: unknown;
    try {
      raw = await this.server.feeStats();
    } catch (err) {
      throw unavailable(err);
    }
    const parsed = feeStatsSchema.safeParse(raw);
    if (!parsed.success) throw new LedgerUnavailableError('Ledger answered unreadable fee stats');
    return {
      lastLedger: parsed.data.last_ledger,
      lastLedgerBaseFee: parsed.data.last_ledger_base_fee,
      capacityUsage: parsed.data.ledger_capacity_usage,
      feeCharged: parsed.data.fee_charged,
      maxFee: parsed.data.max_fee,
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
      let raw: unknown;
      try {
        raw = await this.server.payments().forAccount(publicKey).order('asc').limit(200).cursor(cursor).call();
      } catch (err) {
        if (httpStatusOf(err) === 404) return found;
        throw unavailable(err);
      }
      const page = paymentPageSchema.parse(raw);
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
