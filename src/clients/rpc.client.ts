import { AuthClawbackEnabledFlag, AuthRevocableFlag, Keypair, StrKey, TransactionBuilder, rpc, xdr, type Asset, type FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import { z } from 'zod';
import { formatStroops } from '../domain/amounts';
import { decodeTransaction, laterCursor, ledgerOfToid } from './ledger-history';
import type { FeeStats, FoundTransaction, HistoryPosition, HistoryRead, HistoryTransaction, LedgerAccount, LedgerApi, LedgerBalance, LedgerHealth, LedgerTip, SubmitAnswer, TransactionLookup } from './ledger-api';
import { LedgerCloseWatch, type NextClose } from './ledger-close-watch';
import { LedgerUnavailableError } from './ledger-errors';
import { jsonRpcHttp } from './json-rpc-http';
import { answerWithin, failureReason, neverConnected, unavailable } from './ledger-failures';
import { rejectionOf } from './result-codes';

export interface RpcClientOptions {
  rpcUrl: string;
  networkPassphrase: string;
  /** How long a submission and the wait for its outcome may take before it is treated as unknown. */
  submitTimeoutMs?: number;
  /** How long one call may wait for its answer (a read, or a submission's send) before it fails: the ledger is unavailable, a send unclear. Default 10000. */
  readTimeoutMs?: number;
}

/** Stellar's base fee per operation: RPC's fee statistics name what was charged, not the network's floor. */
const BASE_FEE = 100n;
const PERCENTILES = ['p10', 'p20', 'p30', 'p40', 'p50', 'p60', 'p70', 'p80', 'p90', 'p95', 'p99'] as const;

/** The parts of getTransaction's answer the service's verdicts rest on, checked before use. */
const evidenceSchema = z.object({ latestLedger: z.number().int().positive(), oldestLedger: z.number().int().positive() });

/**
 * getTransaction's answer as it comes over the wire, only the fields the service reads: its result
 * is decoded, its envelope only when the found hash must be read from it, and its metadata never.
 * rpc.Server.getTransaction decodes all three, the metadata first: the metadata is the part whose
 * XDR grows with each protocol (js-stellar-sdk#1185: after protocol 23 an SDK that did not know
 * TransactionMeta v4 threw "Bad union switch: 4" for every applied transaction, and a confirmed
 * write here would have waited as unclear). Decoding it was ~5% of the service's thread in a
 * profile, though no change in the transfer rate could be measured (BENCHMARKS.md, issue 37).
 */
const transactionAnswerSchema = z.discriminatedUnion('status', [
  // Absence proves something only over the ledgers the instance says it holds; a found transaction needs no window.
  evidenceSchema.extend({ status: z.literal('NOT_FOUND') }),
  z.object({
    status: z.enum(['SUCCESS', 'FAILED']),
    ledger: z.number().int().positive(),
    feeBump: z.boolean().optional(),
    envelopeXdr: z.string().min(1),
    resultXdr: z.string().min(1),
  }),
]);
type WireAnswer = z.infer<typeof transactionAnswerSchema>;

/** getTransactions' answer, only what the history reads (stellar-rpc's TransactionInfo; failed transactions are skipped unread). */
const historyAnswerSchema = z.object({
  transactions: z
    .array(
      z.object({
        status: z.string(),
        ledger: z.number().int().positive(),
        createdAt: z.coerce.number().int().nonnegative(),
        txHash: z.string().regex(/^[0-9a-f]{64}$/),
        envelopeXdr: z.string().optional(),
        resultXdr: z.string().optional(),
      }),
    )
    .nullable()
    .transform((list) => list ?? []),
  latestLedger: z.number().int().positive(),
  oldestLedger: z.number().int().positive(),
  cursor: z.string().regex(/^\d*$/),
});
type FoundAnswer = Exclude<WireAnswer, { status: 'NOT_FOUND' }> & { result: xdr.TransactionResult };
type TransactionAnswer = Extract<WireAnswer, { status: 'NOT_FOUND' }> | FoundAnswer;

/**
 * The ledger port over Stellar RPC (JSON-RPC 2.0), through rpc.Server exactly as against a real RPC
 * provider. RPC submits asynchronously: sendTransaction only says whether core took the envelope
 * into its queue; the outcome is asked for with getTransaction just after each close
 * (LedgerCloseWatch). A submission answers the same SubmitAnswer as on Horizon; a failed read is
 * LedgerUnavailableError.
 */
export class RpcClient implements LedgerApi {
  readonly kind = 'rpc';
  readonly server: rpc.Server;
  readonly networkPassphrase: string;
  private readonly submitTimeoutMs: number;
  /** When the ledger closes: a submission's outcome is asked for just after it. */
  private readonly closes: LedgerCloseWatch;

  constructor(options: RpcClientOptions) {
    this.server = new rpc.Server(options.rpcUrl, { allowHttp: options.rpcUrl.startsWith('http://') });
    // Its calls over a lean keep-alive POST that also keeps the read deadline (json-rpc-http.ts says why).
    Object.assign(this.server, { httpClient: jsonRpcHttp(options.readTimeoutMs ?? 10_000) });
    this.networkPassphrase = options.networkPassphrase;
    this.submitTimeoutMs = options.submitTimeoutMs ?? 30_000;
    this.closes = new LedgerCloseWatch({ readTip: async () => (await this.server.getHealth()).latestLedger });
  }

  /**
   * PENDING or DUPLICATE: core holds the envelope; its outcome is polled until the deadline, after
   * which it is unclear. ERROR: refused, with the result's codes. TRY_AGAIN_LATER: core did not take
   * it now; unclear to the caller, who resubmits these same bytes later (never a rebuilt envelope).
   */
  async submit(tx: Transaction | FeeBumpTransaction): Promise<SubmitAnswer> {
    const hash = tx.hash().toString('hex');
    const deadline = Date.now() + this.submitTimeoutMs;
    // Whatever else fails once the envelope may have left (an answer whose XDR cannot be read) is unclear too.
    const answered = this.sendAndPoll(tx, hash, deadline).catch((err: unknown) => unclear(`unreadable answer: ${failureReason(err)}`));
    return answerWithin(answered, this.submitTimeoutMs, () => unclear(`no outcome within ${this.submitTimeoutMs} ms`));
  }

  /** Sends, then polls until `deadline` (the poll stops there too: nothing keeps asking after the caller gave up). */
  private async sendAndPoll(tx: Transaction | FeeBumpTransaction, hash: string, deadline: number): Promise<SubmitAnswer> {
    const feeBump = 'innerTransaction' in tx;
    let sent: rpc.Api.SendTransactionResponse;
    try {
      sent = await this.server.sendTransaction(tx);
    } catch (err) {
      if (neverConnected(err)) return { kind: 'not_delivered', error: unavailable(err) };
      return unclear(`sendTransaction failed: ${failureReason(err)}`);
    }
    if (sent.status === 'ERROR') {
      if (!sent.errorResult) return unclear('sendTransaction answered ERROR without a result');
      return { kind: 'refused', error: rejectionOf(sent.errorResult, feeBump) };
    }
    if (sent.status !== 'PENDING' && sent.status !== 'DUPLICATE') return unclear(`sendTransaction answered ${sent.status}`);
    this.closes.observe(sent.latestLedger);
    // Asked once after each close the watch sees: an instance behind the others (NOT_FOUND at an
    // older ledger) is asked again after the next close, never in a loop. The first ask is at once
    // on an instant ledger (its close came with the answer), on one whose pace the watch has not
    // learned yet, and for a DUPLICATE (it may be applied already); a PENDING envelope on a ledger
    // that keeps a known pace cannot be in a ledger before the next close, so asking at once would
    // only cost both sides a call (issue 37).
    let waitFor = sent.status === 'PENDING' && this.closes.intervalMs !== undefined ? sent.latestLedger : undefined;
    let askedAfter = 0;
    while (Date.now() < deadline) {
      if (waitFor !== undefined) {
        const tip = await this.closes.closedAfter(waitFor, deadline);
        if (tip === undefined) break;
        askedAfter = tip;
      }
      const answer = await this.transactionAnswer(hash).catch(() => undefined);
      // FAILED: in its ledger with tx_failed, refused with its codes as Horizon answers it
      if (answer?.status === 'FAILED') return { kind: 'refused', error: rejectionOf(answer.result, feeBump) };
      if (answer?.status === 'SUCCESS') {
        // Asked by this envelope's own hash, the envelope found is this one, unless this plain
        // envelope applied inside someone's fee bump (which RPC also finds by the inner hash): only
        // then is the found hash read from its XDR (issue 37: parsing it was 2-3% of a transfer's CPU).
        const found = this.foundOf(answer, answer.feeBump === feeBump ? hash : undefined);
        return { kind: 'applied', hash: found.hash, ledger: found.ledger, feeCharged: found.feeCharged };
      }
      const reported = answer?.status === 'NOT_FOUND' ? answer.latestLedger : 0;
      this.closes.observe(reported);
      waitFor = Math.max(reported, askedAfter);
    }
    return unclear('not in a ledger by the submit deadline');
  }

  /**
   * One getTransaction. NOT_FOUND carries its own latestLedger and oldestLedger: the instance that
   * answered has every ledger between them and the hash is in none. A fee bump is found by its
   * inner hash as well; `hash` of the found transaction is then the fee bump's own.
   */
  async lookupTransaction(hash: string): Promise<TransactionLookup> {
    return this.call(async () => {
      const answer = await this.transactionAnswer(hash);
      if (answer.status === 'NOT_FOUND') return { kind: 'absent', latestLedger: answer.latestLedger, oldestLedger: answer.oldestLedger };
      return { kind: 'found', transaction: this.foundOf(answer) };
    });
  }

  /** One getTransaction, checked, its result decoded (transactionAnswerSchema says why not rpc.Server's parse). */
  private async transactionAnswer(hash: string): Promise<TransactionAnswer> {
    const checked = transactionAnswerSchema.safeParse(await this.server._getTransaction(hash));
    if (!checked.success) throw new LedgerUnavailableError('Ledger answered an unreadable transaction');
    const answer = checked.data;
    if (answer.status === 'NOT_FOUND') return answer;
    try {
      return { ...answer, result: xdr.TransactionResult.fromXDR(answer.resultXdr, 'base64') };
    } catch {
      throw new LedgerUnavailableError('Ledger answered a transaction result that does not decode');
    }
  }

  /**
   * A transaction in a ledger; `hash` is the envelope's own (a fee bump's, when it was one), read
   * from the envelope found unless the caller already knows it (`knownHash`).
   */
  private foundOf(answer: FoundAnswer, knownHash?: string): FoundTransaction {
    return {
      hash: knownHash ?? TransactionBuilder.fromXDR(answer.envelopeXdr, this.networkPassphrase).hash().toString('hex'),
      successful: answer.status === 'SUCCESS',
      ledger: answer.ledger,
      feeCharged: answer.result.feeCharged().toBigInt(),
    };
  }

  async loadAccount(publicKey: string, asset?: Asset): Promise<LedgerAccount | undefined> {
    const [account] = await this.loadAccounts([publicKey], asset);
    return account;
  }

  /**
   * The accounts and, with `asset`, their trustlines: all from one getLedgerEntries answer, so a
   * transfer's sender and receiver cost one call (issue 37). In the order asked; undefined for an
   * account not on the network.
   */
  async loadAccounts(publicKeys: readonly string[], asset?: Asset): Promise<(LedgerAccount | undefined)[]> {
    const trusts = asset !== undefined && !asset.isNative();
    // Each account asked once: an RPC instance may refuse a request naming a key twice.
    const keys = [...new Set(publicKeys)].flatMap((publicKey) => {
      const accountId = Keypair.fromPublicKey(publicKey).xdrAccountId();
      const account = xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId }));
      return trusts ? [account, xdr.LedgerKey.trustline(new xdr.LedgerKeyTrustLine({ accountId, asset: asset.toTrustLineXDRObject() }))] : [account];
    });
    const answer = await this.call(() => this.server.getLedgerEntries(...keys));
    this.closes.observe(answer.latestLedger);
    const accounts = new Map<string, xdr.AccountEntry>();
    const trustlines = new Map<string, xdr.TrustLineEntry>();
    for (const { val } of answer.entries) {
      if (val.switch().name === 'account') accounts.set(StrKey.encodeEd25519PublicKey(val.account().accountId().ed25519()), val.account());
      else if (val.switch().name === 'trustline') trustlines.set(StrKey.encodeEd25519PublicKey(val.trustLine().accountId().ed25519()), val.trustLine());
    }
    return publicKeys.map((publicKey) => {
      const account = accounts.get(publicKey);
      return account && accountOf(publicKey, account, trusts ? asset : undefined, trustlines.get(publicKey));
    });
  }

  /** getFeeStats' inclusion fees (classic transactions): what recent ledgers charged per operation. */
  async feeStats(): Promise<FeeStats> {
    const stats = await this.call(() => this.server.getFeeStats());
    const feeCharged: Record<string, bigint> = {};
    for (const p of PERCENTILES) {
      const value = stats.inclusionFee?.[p];
      if (typeof value === 'string' && /^\d+$/.test(value)) feeCharged[p] = BigInt(value);
    }
    return { lastLedger: stats.latestLedger, lastLedgerBaseFee: BASE_FEE, feeCharged };
  }

  /**
   * A tip some answer reported within a quarter of a close (the transfer's own account read just
   * before, under load) saves a getHealth per envelope: a tip one close old only narrows the
   * envelope's window by a ledger (LedgerCloseWatch.recentTip).
   */
  async latestLedger(): Promise<LedgerTip> {
    const recent = this.closes.recentTip();
    if (recent !== undefined) return { sequence: recent };
    const health = await this.health();
    return { sequence: health.latestLedger };
  }

  nextClose(): NextClose | undefined {
    return this.closes.nextClose();
  }

  async health(): Promise<LedgerHealth> {
    const health = await this.call(() => this.server.getHealth());
    if (health.status !== 'healthy') throw new LedgerUnavailableError(`Ledger reports itself ${String(health.status)}`);
    const evidence = evidenceSchema.safeParse(health);
    if (!evidence.success) throw new LedgerUnavailableError('Ledger answered an unreadable health');
    this.closes.observe(evidence.data.latestLedger);
    return evidence.data;
  }

  /**
   * getTransactions from the position's cursor (or the ledger after `ledger` when there is none).
   * An answer with fewer than `limit` transactions scanned every ledger the answering instance holds,
   * so it contains everything through its latestLedger; a full one, everything before its last
   * transaction's ledger. stellar-rpc's cursor can stand before the one asked with (a cursor past
   * the instance's newest ledger answers "0": an instance behind the others), so the position never
   * moves back. A start the instance no longer holds is beyond retention when getHealth says so,
   * else (a start past an instance's newest ledger) nothing new yet.
   */
  async readHistory(from: HistoryPosition, limit: number): Promise<HistoryRead> {
    const byLedger: rpc.Api.GetTransactionsRequest = { startLedger: from.ledger + 1, pagination: { limit } };
    let raw: unknown;
    try {
      raw = await this.server._getTransactions(from.cursor ? { pagination: { cursor: from.cursor, limit } } : byLedger);
    } catch (err) {
      if (!isJsonRpcError(err)) throw unavailable(err);
      // A JSON-RPC error names no window: getHealth does (from its own instance, which is all one answer can say).
      const health = await this.health();
      const next = from.ledger + 1;
      if (next < health.oldestLedger) return { kind: 'beyond_retention', oldestLedger: health.oldestLedger, latestLedger: health.latestLedger };
      if (next > health.latestLedger) return { kind: 'page', page: { transactions: [], cursor: from.cursor, throughLedger: from.ledger, latestLedger: health.latestLedger } };
      // The cursor's ledger, wholly read, left the window; the next one is still held: read from it.
      if (!from.cursor || ledgerOfToid(from.cursor) >= health.oldestLedger) throw new LedgerUnavailableError(`Ledger refused getTransactions: ${String(err.message)}`);
      raw = await this.server._getTransactions(byLedger).catch((again: unknown) => {
        throw unavailable(again);
      });
    }
    const checked = historyAnswerSchema.safeParse(raw);
    if (!checked.success) throw new LedgerUnavailableError('Ledger answered an unreadable transaction page');
    const answer = checked.data;
    this.closes.observe(answer.latestLedger);
    const transactions: HistoryTransaction[] = [];
    for (const t of answer.transactions) {
      if (t.status !== 'SUCCESS') continue;
      if (!t.envelopeXdr || !t.resultXdr) throw new LedgerUnavailableError('Ledger answered a transaction page without XDR');
      transactions.push(this.historyTransactionOf(t.txHash, t.ledger, t.createdAt, t.envelopeXdr, t.resultXdr));
    }
    const full = answer.transactions.length >= limit;
    const last = answer.transactions.at(-1);
    const throughLedger = Math.max(from.ledger, full && last ? last.ledger - 1 : answer.latestLedger);
    const cursor = laterCursor(from.cursor, answer.cursor);
    return { kind: 'page', page: { transactions, cursor, throughLedger, latestLedger: answer.latestLedger } };
  }

  private historyTransactionOf(hash: string, ledger: number, closedAt: number, envelopeXdr: string, resultXdr: string): HistoryTransaction {
    try {
      const decoded = decodeTransaction(envelopeXdr, resultXdr, hash, this.networkPassphrase);
      return { hash, innerHash: decoded.innerHash, ledger, closedAt: new Date(closedAt * 1000), feeCharged: decoded.feeCharged, movements: decoded.movements };
    } catch {
      throw new LedgerUnavailableError('Ledger answered a transaction whose XDR does not decode');
    }
  }

  /** One read: unreachable, failing, a JSON-RPC error or an answer the SDK cannot parse are all "unavailable". */
  private async call<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      throw unavailable(err);
    }
  }
}

/** A JSON-RPC error object as rpc.Server throws it: the instance answered, and refused the call. */
function isJsonRpcError(err: unknown): err is { code: number; message: unknown } {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'number' && 'message' in err;
}

function unclear(reason: string): SubmitAnswer {
  return { kind: 'unclear', reason };
}

/** An account entry (and its trustline for `asset`) as the ledger port's LedgerAccount. */
function accountOf(publicKey: string, account: xdr.AccountEntry, asset: Asset | undefined, trustline: xdr.TrustLineEntry | undefined): LedgerAccount {
  const balances: LedgerBalance[] = [{ assetType: 'native', assetCode: undefined, assetIssuer: undefined, balance: formatStroops(account.balance().toBigInt()), limit: undefined }];
  if (trustline && asset) {
    balances.push({
      assetType: asset.getAssetType(),
      assetCode: asset.getCode(),
      assetIssuer: asset.getIssuer(),
      balance: formatStroops(trustline.balance().toBigInt()),
      limit: formatStroops(trustline.limit().toBigInt()),
    });
  }
  const flags = account.flags();
  return {
    id: publicKey,
    sequence: account.seqNum().toString(),
    balances,
    subentryCount: account.numSubEntries(),
    ...sponsorshipOf(account),
    flags: { authRevocable: (flags & AuthRevocableFlag) !== 0, authClawbackEnabled: (flags & AuthClawbackEnabledFlag) !== 0 },
  };
}

/** Reserves this account pays for others and others pay for it: in the entry's v2 extension, when it has one. */
function sponsorshipOf(account: xdr.AccountEntry): { numSponsoring: number; numSponsored: number } {
  const ext = account.ext();
  if (ext.switch() !== 1) return { numSponsoring: 0, numSponsored: 0 };
  const v1 = ext.v1().ext();
  if (v1.switch() !== 2) return { numSponsoring: 0, numSponsored: 0 };
  return { numSponsoring: v1.v2().numSponsoring(), numSponsored: v1.v2().numSponsored() };
}
