/** What the registry needs of a submitter: whether it has anything queued or in flight. */
export interface EvictableSubmitter {
  readonly idle: boolean;
}

/**
 * The process's submitters of user wallets, one per wallet so that its transfers never race,
 * kept for the wallets used most recently. Each holds its wallet's key pair, so without a bound a
 * long-running process would end up holding the key of every wallet that ever sent: when more
 * than `limit` are kept, the least recently used idle ones are let go. A busy one is never let
 * go (a second submitter for the same wallet would race it); the next use of a released wallet
 * builds a new submitter, which reads the account's sequence again.
 *
 * Letting go waits for the end of the turn: a submitter is handed out idle and given its job a few
 * microtasks later (EntryJobs builds the job, the journal submits it), and a new wallet's request
 * in between must not drop it then.
 */
export class WalletSubmitters<S extends EvictableSubmitter> {
  /** Map order is use order: the least recently used first. */
  private readonly byPublicKey = new Map<string, S>();
  private releaseScheduled = false;

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error('the wallet submitter limit must be a positive integer');
  }

  /** The wallet's submitter, built by `build` when none is kept; marks it the most recently used. */
  get(publicKey: string, build: () => S): S {
    let submitter = this.byPublicKey.get(publicKey);
    if (submitter) {
      this.byPublicKey.delete(publicKey);
    } else {
      submitter = build();
    }
    this.byPublicKey.set(publicKey, submitter);
    if (this.byPublicKey.size > this.limit) this.scheduleRelease();
    return submitter;
  }

  /** The wallet's submitter if one is kept, without marking it used. */
  peek(publicKey: string): S | undefined {
    return this.byPublicKey.get(publicKey);
  }

  get size(): number {
    return this.byPublicKey.size;
  }

  values(): IterableIterator<S> {
    return this.byPublicKey.values();
  }

  private scheduleRelease(): void {
    if (this.releaseScheduled) return;
    this.releaseScheduled = true;
    setImmediate(() => {
      this.releaseScheduled = false;
      this.releaseIdle();
    });
  }

  /** Lets go of the least recently used idle submitters until the limit holds (busy ones stay). */
  private releaseIdle(): void {
    for (const [publicKey, submitter] of this.byPublicKey) {
      if (this.byPublicKey.size <= this.limit) return;
      if (submitter.idle) this.byPublicKey.delete(publicKey);
    }
  }
}
