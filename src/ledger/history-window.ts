import type { LedgerApi } from '../clients/ledger-api';
import type { JournalRepository } from '../db/repositories/journal.repository';
import { CachedReading } from './cached-reading';

export interface HistoryWindowReading {
  oldestLedger: number;
  latestLedger: number;
  /**
   * Submitted envelopes whose first possible ledger is older than the API's history: absence can
   * no longer prove they never applied, so they stay open until an operator decides (ledger:audit).
   */
  envelopesBeyond: number;
}

/**
 * The ledger API's history window (RPC keeps about 7 days by default) against the journal's open
 * envelopes, for /readyz and the metrics; read at most once per `cacheMs`.
 */
export class HistoryWindow {
  private readonly reading: CachedReading<HistoryWindowReading>;

  constructor(
    private readonly client: LedgerApi,
    private readonly journal: JournalRepository,
    cacheMs: number,
  ) {
    this.reading = new CachedReading(() => this.load(), cacheMs);
  }

  /** The latest reading; undefined while the ledger API or the database cannot be read. */
  read(): Promise<HistoryWindowReading | undefined> {
    return this.reading.read();
  }

  private async load(): Promise<HistoryWindowReading> {
    const health = await this.client.health();
    const envelopesBeyond = await this.journal.countSubmittedBefore(health.oldestLedger);
    return { ...health, envelopesBeyond };
  }
}
