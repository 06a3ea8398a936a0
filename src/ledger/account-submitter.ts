import { Account, Keypair, TransactionBuilder, type Transaction, type xdr } from '@stellar/stellar-sdk';
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
  source: Keypair;
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

/**
 * The one submitter for a source account. Submissions from the account never race each other's
 * sequence numbers: in this process they go through one queue, across processes through an
 * advisory lock. Jobs that arrive while a transaction is in flight are batched into the next one
 * (up to maxOperations), and each caller gets its own result.
 */
export class AccountSubmitter {
  readonly publicKey: string;
  private readonly queue: QueuedJob[] = [];
  private draining = false;
  private account: Account | undefined;
  private readonly inFlight = new Set<string>();

  constructor(private readonly options: AccountSubmitterOptions) {
    this.publicKey = options.source.publicKey();
  }

  /** Queues a job; resolves with the ledger's answer for the transaction that carried it. */
  submit(job: LedgerJob): Promise<SubmitResult> {
    if (job.operations.length === 0 || job.operations.length > this.options.maxOperations) {
      return Promise.reject(new Error(`a job needs 1..${this.options.maxOperations} operations`));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        // Let the current burst of callers queue up before the first transaction is built.
        setImmediate(() => void this.drain());
      }
    });
  }

  get queueDepth(): number {
    return this.queue.length;
  }

  /** Hashes of envelopes this submitter is still settling: the reconciler leaves them alone. */
  isInFlight(hash: string): boolean {
    return this.inFlight.has(hash);
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.takeBatch();
        await this.options
          .withLock(`ledger-account:${this.publicKey}`, () => this.runBatch(batch))
          .catch((err: unknown) => {
            for (const q of batch) q.reject(err instanceof Error ? err : new Error(String(err)));
          });
      }
    } finally {
      this.draining = false;
    }
  }

  private takeBatch(): QueuedJob[] {
    const batch: QueuedJob[] = [];
    let ops = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      if (batch.length > 0 && ops + next.job.operations.length > this.options.maxOperations) break;
      batch.push(this.queue.shift()!);
      ops += next.job.operations.length;
    }
    return batch;
  }

  private async runBatch(initial: QueuedJob[]): Promise<void> {
    let pending = initial;
    let lastError: Error = new LedgerUnavailableError();
    for (let round = 0; round < MAX_ROUNDS && pending.length > 0; round++) {
      if (round > 0) await backoff(round);
      let tx: Transaction;
      try {
        tx = await this.build(pending);
      } catch (err) {
        lastError = err instanceof Error ? err : new Error(String(err));
        this.account = undefined;
        if (err instanceof LedgerUnavailableError) continue;
        break;
      }
      const hash = tx.hash().toString('hex');
      const signed: SignedBatch = { hash, envelopeXdr: tx.toEnvelope().toXDR('base64'), tags: pending.flatMap((q) => (q.job.tag ? [q.job.tag] : [])) };
      try {
        await this.options.onSigned?.(signed);
      } catch (err) {
        // Nothing was submitted; the sequence number this envelope used is still free.
        this.account = undefined;
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
          if (err.transactionCode !== 'tx_failed') this.account = undefined; // sequence not consumed
          if (err.transactionCode === 'tx_bad_seq') continue;
          if (err.transactionCode === 'tx_failed' && pending.length > 1) {
            pending = this.rejectFailedJobs(pending, err);
            continue;
          }
          break;
        }
        this.account = undefined;
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

  private async build(pending: QueuedJob[]): Promise<Transaction> {
    if (!this.account) {
      const loaded = await this.options.client.loadAccount(this.publicKey);
      if (!loaded) throw new LedgerRejectedError('tx_no_source_account', []);
      this.account = new Account(this.publicKey, loaded.sequence);
    }
    const builder = new TransactionBuilder(this.account, {
      fee: BASE_FEE,
      networkPassphrase: this.options.client.networkPassphrase,
    }).setTimeout(this.options.txTimeoutSeconds ?? 120);
    for (const q of pending) for (const op of q.job.operations) builder.addOperation(op);
    const tx = builder.build();
    const signers = new Map<string, Keypair>([[this.publicKey, this.options.source]]);
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

export { LedgerIndeterminateError };
