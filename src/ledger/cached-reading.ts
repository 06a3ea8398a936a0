/** How long a caller waits for a fresh reading before it takes the last one. */
const DEFAULT_WAIT_MS = 5_000; // under a scraper's usual 10 s timeout, above a busy machine's slowest read

/**
 * A reading of the ledger taken at most once per `cacheMs` and shared by every caller meanwhile
 * (scrapes, /readyz): undefined while it cannot be read, never a rejection. A caller waits for a
 * fresh reading at most `waitMs`, then gets the last one taken: a ledger that hangs must not hang a
 * metrics scrape or a readiness probe with it (found holding the sandbox host on a latch: /metrics
 * waited as long as the ledger did).
 */
export class CachedReading<T> {
  private current: { at: number; reading: Promise<T | undefined> } | undefined;
  private last: T | undefined;

  constructor(
    private readonly load: () => Promise<T | undefined>,
    private readonly cacheMs: number,
    private readonly waitMs = DEFAULT_WAIT_MS,
  ) {}

  read(): Promise<T | undefined> {
    const now = Date.now();
    if (!this.current || now - this.current.at >= this.cacheMs) {
      const reading = this.load().then(
        (value) => (this.last = value),
        () => (this.last = undefined),
      );
      this.current = { at: now, reading };
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<T | undefined>((resolve) => {
      timer = setTimeout(() => resolve(this.last), this.waitMs);
      timer.unref();
    });
    return Promise.race([this.current.reading, late]).finally(() => clearTimeout(timer));
  }
}
