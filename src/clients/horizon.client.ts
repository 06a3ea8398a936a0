import { Horizon, xdr, type Asset, type FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import type { z } from 'zod';
import { accountSchema, failureSchema, feeStatsSchema, operationPageSchema, paymentPageSchema, rootSchema, submitSchema, transactionSchema } from './horizon-schemas';
import { decodeTransaction, laterCursor } from './ledger-history';
import type { FeeStats, FoundTransaction, HistoryPosition, HistoryRead, HistoryTransaction, LedgerAccount, LedgerApi, LedgerHealth, LedgerPayment, LedgerTip, SubmitAnswer, TransactionLookup } from './ledger-api';
import { LedgerRejectedError, LedgerUnavailableError } from './ledger-errors';
import { answerWithin, failureReason, httpStatusOf, neverConnected, responseDataOf, unavailable } from './ledger-failures';

export interface HorizonClientOptions {
  horizonUrl: string;
  networkPassphrase: string;
  /** How long one submission may take before its outcome is treated as unknown. */
  submitTimeoutMs?: number;
  /** How long a read may take before the ledger counts as unavailable. Default 10000. */
  readTimeoutMs?: number;
  /**
   * The fewest ledgers of history the Horizon keeps (its HISTORY_RETENTION_COUNT, or the provider's
   * promise). Horizon's answers do not say where its history starts, so a 404 proves a hash absent
   * only from the last `retentionLedgers` ledgers of that answer's Latest-Ledger.
   */
  retentionLedgers: number;
}

/**
 * The ledger port over Horizon, through Horizon.Server exactly as against the real Horizon. Answers
 * are validated; a submission answers a SubmitAnswer (a refusal with Stellar's result codes), a
 * failed read is LedgerUnavailableError.
 */
export class HorizonClient implements LedgerApi {
  readonly kind = 'horizon';
  readonly server: Horizon.Server;
  readonly networkPassphrase: string;
  private readonly submitTimeoutMs: number;

  constructor(private readonly options: HorizonClientOptions) {
    this.server = new Horizon.Server(options.horizonUrl, { allowHttp: options.horizonUrl.startsWith('http://') });
    this.networkPassphrase = options.networkPassphrase;
    this.submitTimeoutMs = options.submitTimeoutMs ?? 30_000;
    // Found by tests/faults/ledger-faults.test.ts: the SDK's reads have no timeout at all, so a
    // Horizon that accepts connections and never answers held check-balance, every transfer and
    // /readyz open forever. Reads now fail as LedgerUnavailableError (503) after this long;
    // submissions keep their own deadline (submitTimeoutMs) and handling of unclear answers (SubmitAnswer).
    this.server.httpClient.defaults.timeout = options.readTimeoutMs ?? 10_000;
  }

  /** The account with every balance line Horizon shows (`asset` is not needed: Horizon lists them all). */
  async loadAccount(publicKey: string): Promise<LedgerAccount | undefined> {
    const account = await this.readOptional('account', () => this.server.accounts().accountId(publicKey).call(), accountSchema);
    if (!account) return undefined;
    return {
      id: account.id,
      sequence: account.sequence,
      subentryCount: account.subentry_count,
      numSponsoring: account.num_sponsoring,
      numSponsored: account.num_sponsored,
      flags: { authRevocable: account.flags.auth_revocable, authClawbackEnabled: account.flags.auth_clawback_enabled },
      balances: account.balances.map((b) => ({
        assetType: b.asset_type,
        assetCode: b.asset_code,
        assetIssuer: b.asset_issuer,
        balance: b.balance,
        limit: b.limit,
      })),
    };
  }

  /** One request per account (Horizon has no batch read), all at once. */
  loadAccounts(publicKeys: readonly string[]): Promise<(LedgerAccount | undefined)[]> {
    return Promise.all(publicKeys.map((publicKey) => this.loadAccount(publicKey)));
  }

  /**
   * Horizon submits synchronously: it answers when the ledger holding the transaction closed. Only
   * two answers are clear: success, and the 400 refusal with result codes. A connection never
   * opened never carried the envelope (not delivered). Anything after the envelope may have left
   * (timeout, 5xx, reset, an unreadable body) is unclear.
   */
  async submit(tx: Transaction | FeeBumpTransaction): Promise<SubmitAnswer> {
    const answered = this.server
      .submitTransaction(tx, { skipMemoRequiredCheck: true })
      .then((raw): SubmitAnswer => {
        const parsed = submitSchema.safeParse(raw);
        if (!parsed.success) return { kind: 'unclear', reason: 'unreadable answer' };
        return { kind: 'applied', hash: parsed.data.hash, ledger: parsed.data.ledger, feeCharged: parsed.data.fee_charged };
      })
      .catch((err: unknown) => this.failedSubmission(err, 'innerTransaction' in tx));
    return answerWithin(answered, this.submitTimeoutMs, () => ({ kind: 'unclear', reason: `no answer within ${this.submitTimeoutMs} ms` }));
  }

  /** What a submission the SDK threw for says: a readable 400 is a refusal, a connection never opened not delivered, the rest unclear. */
  private failedSubmission(err: unknown, feeBump: boolean): SubmitAnswer {
    if (httpStatusOf(err) === 400) {
      const failure = failureSchema.safeParse(responseDataOf(err));
      if (failure.success) return { kind: 'refused', error: rejection(failure.data, feeBump) };
    }
    if (neverConnected(err)) return { kind: 'not_delivered', error: unavailable(err) };
    return { kind: 'unclear', reason: failureReason(err) };
  }

  /**
   * A transaction by hash (a fee bump by its inner hash too). Horizon ingests ledgers in order and
   * names its newest one in the Latest-Ledger header of every answer, so a 404 with that header
   * shows the hash absent from every ledger up to it, on the instance that answered.
   */
  async lookupTransaction(hash: string): Promise<TransactionLookup> {
    const url = `${this.server.serverURL.toString().replace(/\/+$/, '')}/transactions/${hash}`;
    // The SDK's HTTP client throws for a non-2xx answer and keeps it (with its headers) on the error.
    const response = await this.server.httpClient.get<unknown>(url).catch((err: unknown) => {
      if (httpStatusOf(err) === undefined) throw unavailable(err);
      return (err as { response: HttpAnswer }).response;
    });
    if (response.status === 404) {
      const latestLedger = Number(headerOf(response.headers, 'latest-ledger'));
      // Without the header the answer proves nothing: treat it as unreadable.
      if (!Number.isSafeInteger(latestLedger) || latestLedger <= 0) throw new LedgerUnavailableError('Ledger answered a 404 without Latest-Ledger');
      return { kind: 'absent', latestLedger, oldestLedger: Math.max(1, latestLedger - this.options.retentionLedgers + 1) };
    }
    if (response.status !== 200) throw new LedgerUnavailableError(`Ledger answered ${response.status}`);
    const found = transactionSchema.safeParse(renameLedger(response.data));
    if (!found.success) throw new LedgerUnavailableError('Ledger answered an unreadable transaction');
    const transaction: FoundTransaction = {
      hash: found.data.fee_bump_transaction?.hash ?? found.data.hash,
      successful: found.data.successful,
      ledger: found.data.ledger_attr,
      feeCharged: found.data.fee_charged,
    };
    return { kind: 'found', transaction };
  }

  /** The newest ledger this Horizon has ingested. */
  async latestLedger(): Promise<LedgerTip> {
    const root = await this.read('root', () => this.server.root(), rootSchema);
    return { sequence: root.history_latest_ledger };
  }

  /** The window lookups prove absence over: what the Horizon holds, within what its operator promises to keep. */
  async health(): Promise<LedgerHealth> {
    const root = await this.read('root', () => this.server.root(), rootSchema);
    const latestLedger = root.history_latest_ledger;
    return { latestLedger, oldestLedger: Math.max(root.history_elder_ledger ?? 1, latestLedger - this.options.retentionLedgers + 1) };
  }

  /** Horizon's fee statistics of recent ledgers (what bids are being charged). */
  async feeStats(): Promise<FeeStats> {
    const stats = await this.read('fee stats', () => this.server.feeStats(), feeStatsSchema);
    return { lastLedger: stats.last_ledger, lastLedgerBaseFee: stats.last_ledger_base_fee, feeCharged: stats.fee_charged };
  }

  /** Every successful payment of `asset` to or from an account, oldest first (Horizon's /accounts/:id/payments). */
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

  /**
   * /operations after the position (include_failed=false, each joined to its transaction), oldest
   * first. A page shorter than `limit` holds every operation up to the Latest-Ledger of the
   * instance that answered it; a full one, every operation before its last one's ledger. Without a
   * cursor, the position is the end of `ledger` (the highest TOID it has). The root's history window,
   * read first, says whether Horizon still holds the position's next ledger.
   */
  async readHistory(from: HistoryPosition, limit: number): Promise<HistoryRead> {
    // An ascending page whose cursor is older than the history Horizon holds simply starts at its
    // oldest ledger (a 410 before_history is only for descending pages): the root says where it starts.
    const held = await this.health();
    if (from.ledger + 1 < held.oldestLedger) return { kind: 'beyond_retention', oldestLedger: held.oldestLedger, latestLedger: held.latestLedger };
    const cursor = from.cursor ?? String(((BigInt(from.ledger) + 1n) << 32n) - 1n);
    const url = `${this.server.serverURL.toString().replace(/\/+$/, '')}/operations?cursor=${cursor}&order=asc&limit=${limit}&include_failed=false&join=transactions`;
    const response = await this.server.httpClient.get<unknown>(url).catch((err: unknown) => {
      if (httpStatusOf(err) === undefined) throw unavailable(err);
      return (err as { response: HttpAnswer }).response;
    });
    if (response.status !== 200) throw new LedgerUnavailableError(`Ledger answered ${response.status}`);
    const latestLedger = Number(headerOf(response.headers, 'latest-ledger'));
    if (!Number.isSafeInteger(latestLedger) || latestLedger <= 0) throw new LedgerUnavailableError('Ledger answered operations without Latest-Ledger');
    const page = operationPageSchema.safeParse(response.data);
    if (!page.success) throw new LedgerUnavailableError('Ledger answered an unreadable operations page');
    const records = page.data._embedded.records;
    // One transaction decoded once, keeping only the movements of its operations this page holds.
    const transactions = new Map<string, { transaction: HistoryTransaction; indexes: Set<number> }>();
    for (const record of records) {
      const joined = record.transaction;
      if (!record.transaction_successful || !joined.successful) continue;
      let held = transactions.get(joined.hash);
      if (!held) {
        held = { transaction: this.historyTransactionOf(joined), indexes: new Set() };
        transactions.set(joined.hash, held);
      }
      held.indexes.add(Number(BigInt(record.paging_token) & 0xfffn) - 1);
    }
    const last = records.at(-1);
    const full = records.length >= limit;
    return {
      kind: 'page',
      page: {
        transactions: [...transactions.values()].map(({ transaction, indexes }) => ({ ...transaction, movements: transaction.movements.filter((m) => indexes.has(m.operationIndex)) })),
        cursor: last ? laterCursor(from.cursor, last.paging_token) : from.cursor,
        throughLedger: Math.max(from.ledger, full && last ? last.transaction.ledger - 1 : latestLedger),
        latestLedger,
      },
    };
  }

  private historyTransactionOf(joined: z.infer<typeof operationPageSchema>['_embedded']['records'][number]['transaction']): HistoryTransaction {
    try {
      const decoded = decodeTransaction(joined.envelope_xdr, joined.result_xdr, joined.hash, this.networkPassphrase);
      return { hash: joined.hash, innerHash: decoded.innerHash, ledger: joined.ledger, closedAt: new Date(joined.created_at), feeCharged: decoded.feeCharged, movements: decoded.movements };
    } catch {
      throw new LedgerUnavailableError('Ledger answered a transaction whose XDR does not decode');
    }
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
}

/**
 * A fee bump refused because of its inner transaction carries the inner codes (what the
 * transaction does); one refused at the outer level is about its fee source (who pays).
 */
function rejection(failure: z.infer<typeof failureSchema>, feeBump: boolean): LedgerRejectedError {
  const codes = failure.extras.result_codes;
  const feeCharged = feeChargedOf(failure.extras.result_xdr);
  if (codes.inner_transaction) return new LedgerRejectedError(codes.inner_transaction.transaction, codes.inner_transaction.operations ?? [], false, feeCharged);
  return new LedgerRejectedError(codes.transaction, codes.operations ?? [], feeBump, feeCharged);
}

function feeChargedOf(resultXdr: string | undefined): bigint | undefined {
  if (!resultXdr) return undefined;
  try {
    return xdr.TransactionResult.fromXDR(resultXdr, 'base64').feeCharged().toBigInt();
  } catch {
    return undefined;
  }
}

/** What the SDK's HTTP client answers (its type is not exported). */
interface HttpAnswer {
  status: number;
  data: unknown;
  headers: Record<string, unknown> | { get?(name: string): unknown };
}

function headerOf(headers: HttpAnswer['headers'], name: string): unknown {
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(name: string): unknown }).get(name);
  return (headers as Record<string, unknown>)[name];
}

/** The raw resource names its ledger `ledger`; the SDK's call() (and the schema) say `ledger_attr`. */
function renameLedger(data: unknown): unknown {
  if (!data || typeof data !== 'object' || !('ledger' in data)) return data;
  return { ...data, ledger_attr: (data as { ledger: unknown }).ledger };
}
