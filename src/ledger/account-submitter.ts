import { Account, Keypair, StrKey, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { LedgerIndeterminateError, LedgerRejectedError, LedgerUnavailableError } from '../clients/ledger-errors';
import type { StellarClient, SubmitResult } from '../clients/stellar.client';
import type { Logger } from '../logger';
import { settleByHash } from './settle-by-hash';

/** Operations that must land together (activation's create_account + change_trust), with their extra signers. */
export interface LedgerJob {
  operations: xdr.Operation[];
  /** Keys besides the source account's that must sign (e.g. a new wallet for its change_trust). */
  signers?: Keypair[];
  /** Opaque label the onSigned hook sees (a payment reference, for instance). */
  tag?: string;
}

export interface SignedBatch {
  hash: string;
  envelopeXdr: string;
  tags: string[];
}

export interface AccountSubmitterOptions {
  client: StellarClient;
  /** The account whose operations these are (it signs every transaction). */
  source: Keypair;
  /**
   * Channel accounts that pay fees and sequence numbers instead of the source, one transaction
   * each per ledger, so several transactions of the source's operations land in the same ledger.
   * Unset = the source account itself is the only lane.
   */
  channels?: Keypair[];
  /** Cross-process mutual exclusion on the source account (a PostgreSQL advisory lock). */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Jobs queued while a transaction is in flight go out together, up to this many operations. */
  maxOperations: number;
  /**
   * Awaited after signing and before submitting. Payments store the envelope and hash here, so a
   * crash after this point is finished by the reconciler with the same envelope. If it throws,
   * nothing is submitted.
   */
  onSigned?: (batch: SignedBatch) => Promise<void>;
  /** Told when a signed envelope is known to be dead (rejected), so it is never resubmitted. */
  onRejected?: (hash: string) => Promise<void>;
  logger: Logger;
  /** Seconds a signed envelope stays valid (its time bounds): after that it provably never applies. */
  txTimeoutSeconds?: number;
  /** Per-submission observer, for metrics. */
  onResult?: (code: string) => void;
}

interface QueuedJob {
  job: LedgerJob;
  resolve(result: SubmitResult): void;
  reject(err: Error): void;
}

const MAX_ROUNDS = 6;
const BASE_FEE = '100';
/** Stellar accepts at most 20 signatures on a transaction envelope. */
const MAX_SIGNATURES = 20;

/** One sequence of transactions: its own account (source or channel), sequence cache and lock. */
interface Lane {
  keypair: Keypair;
  account: Account | undefined;
  busy: boolean;
}

/**
 * The one submitter for a source account. Submissions from the account never race each other's
 * sequence numbers: in this process they go through one queue, across processes through an
 * advisory lock. Jobs that arrive while a transaction is in flight are batched into the next one
 * (up to maxOperations), and each caller gets its own result.
 */
export class AccountSubmitter {
  readonly publicKey: string;
  private readonly queue: QueuedJob[] = [];
  private waking = false;
  private readonly lanes: Lane[];
  private readonly usesChannels: boolean;
  private readonly inFlight = new Set<string>();

  constructor(private readonly options: AccountSubmitterOptions) {
    this.publicKey = options.source.publicKey();
    this.usesChannels = (options.channels?.length ?? 0) > 0;
    this.lanes = (this.usesChannels ? options.channels! : [options.source]).map((keypair) => ({ keypair, account: undefined, busy: false }));
  }

  /** Queues a job; resolves with the ledger's answer for the transaction that carried it. */
  submit(job: LedgerJob): Promise<SubmitResult> {
    if (job.operations.length === 0 || job.operations.length > this.options.maxOperations) {
      return Promise.reject(new Error(`a job needs 1..${this.options.maxOperations} operations`));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.wake();
    });
  }

  get queueDepth(): number {
    return this.queue.length;
  }

  /** Hashes of envelopes this submitter is still settling: the reconciler leaves them alone. */
  isInFlight(hash: string): boolean {
    return this.inFlight.has(hash);
  }

  /**
   * Sets idle lanes to work on the queue. Deferred by a tick so the current burst of callers is
   * queued before the first transaction is built. Every lane pulls batches from the one queue;
   * each keeps its own sequence numbers in order.
   */
  private wake(): void {
    if (this.waking) return;
    this.waking = true;
    setImmediate(() => {
      this.waking = false;
      for (const lane of this.lanes) {
        if (lane.busy || this.queue.length === 0) continue;
        lane.busy = true;
        void this.runLane(lane).finally(() => {
          lane.busy = false;
          if (this.queue.length > 0) this.wake();
        });
      }
    });
  }

  private async runLane(lane: Lane): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.takeBatch();
      await this.options
        .withLock(`ledger-account:${lane.keypair.publicKey()}`, () => this.runBatch(lane, batch))
        .catch((err: unknown) => {
          for (const q of batch) q.reject(err instanceof Error ? err : new Error(String(err)));
        });
    }
  }

  /** The next jobs that fit one transaction: the operation limit and the 20-signature limit. */
  private takeBatch(): QueuedJob[] {
    const batch: QueuedJob[] = [];
    let ops = 0;
    const signers = new Set<string>([this.publicKey]);
    if (this.usesChannels) signers.add('channel');
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      const extra = (next.job.signers ?? []).map((k) => k.publicKey()).filter((k) => !signers.has(k));
      if (batch.length > 0 && (ops + next.job.operations.length > this.options.maxOperations || signers.size + extra.length > MAX_SIGNATURES)) break;
      batch.push(this.queue.shift()!);
      ops += next.job.operations.length;
      for (const k of extra) signers.add(k);
    }
    return batch;
  }

  private async runBatch(lane: Lane, initial: QueuedJob[]): Promise<void> {
    let pending = initial;
    let lastError: Error = new LedgerUnavailableError();
    for (let round = 0; round < MAX_ROUNDS && pending.length > 0; round++) {
      if (round > 0) await backoff(round);
      let tx: Transaction;
      try {
        tx = await this.build(lane, pending);
      } catch (err) {
        lastError = err instanceof Error ? err : new Error(String(err));
        lane.account = undefined;
        if (err instanceof LedgerUnavailableError) continue;
        break;
      }
      const hash = tx.hash().toString('hex');
      const signed: SignedBatch = { hash, envelopeXdr: tx.toEnvelope().toXDR('base64'), tags: pending.flatMap((q) => (q.job.tag ? [q.job.tag] : [])) };
      try {
        await this.options.onSigned?.(signed);
      } catch (err) {
        // Nothing was submitted; the sequence number this envelope used is still free.
        lane.account = undefined;
        lastError = err instanceof Error ? err : new Error(String(err));
        break;
      }
      this.inFlight.add(hash);
      try {
        const result = await this.submitAndSettle(tx, hash);
        this.options.onResult?.('tx_success');
        for (const q of pending) q.resolve(result);
        return;
      } catch (err) {
        lastError = err instanceof Error ? err : new Error(String(err));
        if (err instanceof LedgerRejectedError) {
          this.options.onResult?.(err.code);
          await this.options.onRejected?.(hash).catch((e: unknown) => this.options.logger.error({ err: e, hash }, 'could not mark envelope dead'));
          if (err.transactionCode !== 'tx_failed') lane.account = undefined; // sequence not consumed
          if (err.transactionCode === 'tx_bad_seq') continue;
          if (err.transactionCode === 'tx_failed' && pending.length > 1) {
            pending = this.rejectFailedJobs(pending, err);
            continue;
          }
          break;
        }
        lane.account = undefined;
        if (err instanceof LedgerUnavailableError) {
          this.options.onResult?.('unavailable');
          continue;
        }
        break;
      } finally {
        this.inFlight.delete(hash);
      }
    }
    for (const q of pending) q.reject(lastError);
  }

  /** Splits a failed batch: jobs whose own operations failed get the error; the rest go again. */
  private rejectFailedJobs(pending: QueuedJob[], err: LedgerRejectedError): QueuedJob[] {
    const survivors: QueuedJob[] = [];
    let index = 0;
    for (const q of pending) {
      const codes = err.operationCodes.slice(index, index + q.job.operations.length);
      index += q.job.operations.length;
      const failed = codes.length === 0 || codes.some((c) => c !== 'op_success');
      if (failed) q.reject(new LedgerRejectedError('tx_failed', codes));
      else survivors.push(q);
    }
    return survivors;
  }

  private async build(lane: Lane, pending: QueuedJob[]): Promise<Transaction> {
    const laneKey = lane.keypair.publicKey();
    if (!lane.account) {
      const loaded = await this.options.client.loadAccount(laneKey);
      if (!loaded) throw new LedgerRejectedError('tx_no_source_account', []);
      lane.account = new Account(laneKey, loaded.sequence);
    }
    const builder = new TransactionBuilder(lane.account, {
      fee: BASE_FEE,
      networkPassphrase: this.options.client.networkPassphrase,
    }).setTimeout(this.options.txTimeoutSeconds ?? 120);
    // With a channel as the transaction's source, operations without their own source act for the source account.
    const ownSource = this.usesChannels ? xdr.MuxedAccount.keyTypeEd25519(Keypair.fromPublicKey(this.publicKey).rawPublicKey()) : undefined;
    // The source account signs only when one of its operations is in the transaction: Stellar
    // refuses signatures nobody needs (tx_bad_auth_extra), e.g. a batch of trustlines alone.
    let sourceActs = !this.usesChannels;
    for (const q of pending) {
      for (const op of q.job.operations) {
        if (ownSource && !op.sourceAccount()) op.sourceAccount(ownSource);
        const opSource = op.sourceAccount();
        if (opSource && StrKey.encodeEd25519PublicKey(opSource.ed25519()) === this.publicKey) sourceActs = true;
        builder.addOperation(op);
      }
    }
    const tx = builder.build();
    const signers = new Map<string, Keypair>([[laneKey, lane.keypair]]);
    if (sourceActs) signers.set(this.publicKey, this.options.source);
    for (const q of pending) for (const s of q.job.signers ?? []) signers.set(s.publicKey(), s);
    tx.sign(...signers.values());
    return tx;
  }

  private async submitAndSettle(tx: Transaction, hash: string): Promise<SubmitResult> {
    try {
      return await this.options.client.submit(tx);
    } catch (err) {
      if (!(err instanceof LedgerIndeterminateError)) throw err;
      // Outcome unknown: never build a replacement; look the hash up and resubmit the same envelope.
      this.options.logger.warn({ hash }, 'submission outcome unknown, settling by hash');
      return settleByHash(this.options.client, tx, hash);
    }
  }
}

function backoff(round: number): Promise<void> {
  const base = Math.min(2000, 100 * 2 ** round);
  return new Promise((resolve) => setTimeout(resolve, base / 2 + Math.random() * (base / 2)));
}

