/**
 * When the ledger closes, learned from watching it, so a submission waiting for its ledger asks
 * once just after the close instead of on a timer of its own.
 *
 * Stellar RPC's sendTransaction only queues an envelope; its outcome must be polled. Each waiting
 * submission polling on a doubling timer answers up to a whole interval after the close that
 * applied it, and a hundred of them poll a hundred times. Here one loop per client reads the
 * ledger's tip, and only around the close it predicts: sleeping until just before it, then reading
 * every `step` until the tip moves. Every waiter whose ledger has closed is then told at once.
 *
 * The prediction comes from the closes this loop saw itself (the tip moved between two reads a
 * step apart): the last one, plus a whole number of close intervals, the interval being the
 * shortest seen per ledger lately (a sandbox skips idle ledgers, so longer gaps are multiples of
 * it; a late read can only make a gap look longer). Until two closes were seen it reads every
 * `FIRST_STEP_MS`: a watch learns a network's pace from its first two closes.
 */

export interface LedgerCloseWatchOptions {
  /** The ledger's latest closed sequence, as the ledger API reports it (throws when unavailable). */
  readTip: () => Promise<number>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** How often the tip is read while the pace is not known yet. */
const FIRST_STEP_MS = 100;
/** Reads per interval around a predicted close: the answer comes within interval/STEPS_PER_CLOSE of it. */
const STEPS_PER_CLOSE = 20;
const MIN_STEP_MS = 20;
const MAX_STEP_MS = 250;
/** Intervals remembered for the estimate. */
const SAMPLES = 16;
/**
 * A prediction from a close older than this many intervals is not given (nextClose): Stellar's
 * closes drift, and only a grid measured from a recent close says which side of a close "now" is.
 */
const FRESH_INTERVALS = 3;

/** The ledger's next close as the watch predicts it (epoch ms), with the interval it predicts by. */
export interface NextClose {
  at: number;
  intervalMs: number;
}

interface Waiter {
  after: number;
  deadline: number;
  resolve: (tip: number | undefined) => void;
}

export class LedgerCloseWatch {
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly waiters = new Set<Waiter>();
  private looping = false;
  /** The newest sequence seen, by a read or in an answer. */
  private tip = 0;
  /** When an answer last reported the newest sequence (or a later one). */
  private tipSeenAt = -Infinity;
  /** The last read of the tip, and when it was made. */
  private lastRead: { tip: number; at: number } | undefined;
  /** The last close this watch saw, and its estimated time (on the grid of predicted closes). */
  private lastClose: { sequence: number; at: number } | undefined;
  /** The last close seen to within a step: what intervals are measured from. */
  private lastPrecise: { sequence: number; at: number } | undefined;
  /** Milliseconds per ledger between closes seen to within a step, newest last. */
  private readonly intervals: number[] = [];
  /**
   * How long before a predicted close reading starts. Doubles when the first read after a sleep
   * finds the close already past (the prediction was late, and a late read teaches nothing
   * precise); halves back towards a step when a close took several reads.
   */
  private leadMs = 0;
  /** Reads since the last sleep to a predicted close (none slept yet: never counted as late). */
  private readsSincePrediction = Infinity;

  constructor(private readonly options: LedgerCloseWatchOptions) {
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** The shortest interval per ledger seen lately; undefined until two closes were seen. */
  get intervalMs(): number | undefined {
    return this.intervals.length === 0 ? undefined : Math.min(...this.intervals);
  }

  /** A sequence some answer reported (sendTransaction, getTransaction and getLedgerEntries carry the latest ledger). */
  observe(sequence: number): void {
    if (sequence <= 0 || sequence < this.tip) return;
    this.tip = sequence;
    this.tipSeenAt = this.now();
  }

  /**
   * The newest sequence, when an answer reported it within a quarter of the close interval: at
   * most one close behind the ledger (the interval is the shortest seen). Undefined while the pace
   * is unknown, which is always the case on instant ledgers, where every submission closes one: the
   * caller then reads the tip itself.
   */
  recentTip(): number | undefined {
    const interval = this.intervalMs;
    if (interval === undefined || this.now() - this.tipSeenAt > interval / 4) return undefined;
    return this.tip;
  }

  /**
   * When the next close is due, from a close this watch saw within the last FRESH_INTERVALS
   * intervals; undefined while the pace is unknown (always on instant ledgers) or the watch has not
   * read the ledger lately (it reads only while someone waits for a close). The grid is the
   * shortest interval seen, so a prediction errs early: a close that comes late is still ahead.
   */
  nextClose(): NextClose | undefined {
    const interval = this.intervalMs;
    const last = this.lastClose;
    if (interval === undefined || !last) return undefined;
    const now = this.now();
    if (now - last.at > FRESH_INTERVALS * interval) return undefined;
    return { at: last.at + Math.max(1, Math.ceil((now - last.at) / interval)) * interval, intervalMs: interval };
  }

  /**
   * Resolves with the tip once a ledger after `sequence` has closed, or undefined at `deadline`
   * (epoch ms). Never rejects: a failed read is read again at the next step.
   */
  closedAfter(sequence: number, deadline: number): Promise<number | undefined> {
    if (this.tip > sequence) return Promise.resolve(this.tip);
    return new Promise((resolve) => {
      this.waiters.add({ after: sequence, deadline, resolve });
      if (!this.looping) void this.loop();
    });
  }

  private async loop(): Promise<void> {
    this.looping = true;
    try {
      for (let first = true; this.waiters.size > 0; first = false) {
        const delay = first ? 0 : this.delayBeforeRead();
        // A sleep to a predicted close: the reads that follow tell whether the prediction was late.
        if (delay > this.step()) this.readsSincePrediction = 0;
        await this.sleep(delay);
        const at = this.now();
        const read = await this.options.readTip().catch(() => undefined);
        this.readsSincePrediction++;
        if (read !== undefined) {
          if (this.lastRead && read > this.lastRead.tip) {
            this.learn(read, this.lastRead.at, at);
            this.adjustLead();
          }
          this.observe(read);
          this.lastRead = { tip: read, at };
        }
        this.settle();
      }
    } finally {
      this.looping = false;
    }
  }

  /**
   * A close seen between two reads, at `before` (the old tip) and `at` (the new one). Its time is
   * the predicted one when the reads allow it, else the nearer read: a prediction the reads show
   * late or early is corrected by them. Reads a step apart also measure the interval.
   */
  private learn(sequence: number, before: number, at: number): void {
    const interval = this.intervalMs;
    const last = this.lastClose;
    let close = at;
    if (interval !== undefined && last) {
      const predicted = last.at + Math.max(1, Math.ceil((before - last.at) / interval)) * interval;
      close = Math.min(Math.max(predicted, before), at);
    }
    this.lastClose = { sequence, at: close };
    if (at - before > this.step() * 1.5) return;
    const precise = this.lastPrecise;
    if (precise && sequence > precise.sequence && close > precise.at) {
      this.intervals.push((close - precise.at) / (sequence - precise.sequence));
      if (this.intervals.length > SAMPLES) this.intervals.shift();
    }
    this.lastPrecise = { sequence, at: close };
  }

  private adjustLead(): void {
    const step = this.step();
    const interval = this.intervalMs ?? 0;
    if (this.readsSincePrediction <= 1) this.leadMs = Math.min(interval / 2, Math.max(step, this.leadMs * 2));
    else if (this.readsSincePrediction > 6 && this.readsSincePrediction !== Infinity) this.leadMs = Math.max(step, this.leadMs / 2);
    this.readsSincePrediction = Infinity;
  }

  private step(): number {
    const interval = this.intervalMs;
    if (interval === undefined) return FIRST_STEP_MS;
    return Math.min(MAX_STEP_MS, Math.max(MIN_STEP_MS, interval / STEPS_PER_CLOSE));
  }

  /**
   * Until a step before the next predicted close, and at least a step (a loop's first read is at
   * once); until the pace is known, every step. Past a predicted close, every step while it may
   * still come late (Stellar's closes drift by a second); half an interval past it with the tip
   * unmoved, it was skipped (a sandbox closes only with something queued): the one after is next.
   */
  private delayBeforeRead(): number {
    const step = this.step();
    const interval = this.intervalMs;
    const last = this.lastClose;
    if (interval === undefined || !last) return step;
    const now = this.now();
    const from = Math.max(last.at, now - interval / 2);
    const next = last.at + Math.max(1, Math.ceil((from - last.at) / interval)) * interval;
    return Math.max(step, Math.min(next - Math.max(step, this.leadMs), this.nearestDeadline()) - now);
  }

  private nearestDeadline(): number {
    let nearest = Infinity;
    for (const w of this.waiters) nearest = Math.min(nearest, w.deadline);
    return nearest;
  }

  private settle(): void {
    const now = this.now();
    for (const w of this.waiters) {
      if (this.tip > w.after) w.resolve(this.tip);
      else if (now >= w.deadline) w.resolve(undefined);
      else continue;
      this.waiters.delete(w);
    }
  }
}
