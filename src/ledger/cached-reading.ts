/**
 * A reading of the ledger taken at most once per `cacheMs` and shared by every caller meanwhile
 * (scrapes, /readyz): undefined while it cannot be read, never a rejection.
 */
export class CachedReading<T> {
  private cached: { at: number; reading: Promise<T | undefined> } | undefined;

  constructor(
    private readonly load: () => Promise<T | undefined>,
    private readonly cacheMs: number,
  ) {}

  read(): Promise<T | undefined> {
    const now = Date.now();
    if (!this.cached || now - this.cached.at >= this.cacheMs) {
      this.cached = { at: now, reading: this.load().catch(() => undefined) };
    }
    return this.cached.reading;
  }
}
