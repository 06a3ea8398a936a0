import crypto from 'node:crypto';
import os from 'node:os';
import type { HistoryPage, HistoryTransaction, LedgerApi, LedgerMovement } from '../clients/ledger-api';
import type { JournalRepository } from '../db/repositories/journal.repository';
import type { FollowPosition, MovementRepository, NewMovement } from '../db/repositories/movement.repository';
import { sameAsset, type MovedAsset } from '../domain/ledger-movement';
import type { Logger } from '../logger';
import { BackgroundWorker } from '../workers/background-worker';
import type { EnvelopeLifecycle } from './envelope-lifecycle';

export interface FollowerDeps {
  client: LedgerApi;
  movements: MovementRepository;
  journal: JournalRepository;
  lifecycle: EnvelopeLifecycle;
  /** The token and the system accounts (issuer, distribution): known once the ledger's keys are. */
  accounts(): Promise<{ token: MovedAsset; systemKeys: string[] }>;
}

export interface FollowerOptions {
  /** Transactions (RPC) or operations (Horizon) asked for per page. */
  pageLimit: number;
  /** How long the position stays this process's without a page committed. */
  leaseMs: number;
  /** Pages one pass reads at most before it yields to the next. */
  maxPagesPerPass: number;
}

/**
 * Follows the ledger's history (CONTRACT.md section 12): from the position kept in the database,
 * reads every closed ledger in order through the ledger API and records each movement into or out
 * of an account the service holds (users' wallets, archived wallets, the issuer and distribution
 * accounts) that is not the service's own write; the service's own transactions are its journal's
 * envelopes, and one the journal has not settled yet is confirmed here. A page's movements and the
 * position after it commit together, under a lease one process holds at a time and only from the
 * position the page was read from: a crash, a second process or a repeated page records nothing
 * twice, and no ledger is skipped: a stretch the API no longer holds is recorded as a gap.
 */
export class LedgerFollower extends BackgroundWorker {
  /** This process, as the lease names it. */
  private readonly owner = `${os.hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;

  constructor(
    private readonly deps: FollowerDeps,
    private readonly options: FollowerOptions,
    private readonly logger: Logger,
  ) {
    super(logger, { failureMessage: 'ledger follow deferred' });
  }

  override async stop(): Promise<void> {
    await super.stop();
    await this.deps.movements.release(this.owner).catch(() => undefined);
  }

  /** Reads pages until it has caught up with the answering instance, lost the lease or read its share. */
  protected async pass(): Promise<void> {
    const { movements } = this.deps;
    let position = await movements.lease(this.owner, this.options.leaseMs, () => this.firstLedger());
    if (!position) return;
    for (let pages = 0; pages < this.options.maxPagesPerPass; pages++) {
      const read = await this.deps.client.readHistory(position, this.options.pageLimit);
      if (read.kind === 'beyond_retention') {
        if (!(await movements.recordGap(this.owner, position, read.oldestLedger))) return;
        this.logger.error({ firstLedger: position.ledger + 1, lastLedger: read.oldestLedger - 1 }, 'ledger history gap: the ledger API no longer holds these ledgers (npm run ledger:audit)');
        position = { cursor: undefined, ledger: read.oldestLedger - 1 };
        continue;
      }
      const { page } = read;
      const next: FollowPosition = { cursor: page.cursor, ledger: page.throughLedger };
      const recorded = await this.recordPage(position, next, page);
      if (!recorded) return;
      position = next;
      if (page.throughLedger >= page.latestLedger) return;
    }
  }

  /** The service's own transactions settled, the others' movements and the position committed. */
  private async recordPage(from: FollowPosition, to: FollowPosition, page: HistoryPage): Promise<boolean> {
    const own = new Map((await this.deps.journal.envelopesByHash(page.transactions.map((t) => t.innerHash))).map((e) => [e.hash, e]));
    const others: HistoryTransaction[] = [];
    for (const transaction of page.transactions) {
      const envelope = own.get(transaction.innerHash);
      if (!envelope) {
        others.push(transaction);
        continue;
      }
      if (envelope.status === 'pending' || envelope.status === 'submitted') {
        // Seen applied before the journal settled it: this is the ledger's evidence, as a lookup's would be.
        await this.deps.lifecycle.confirm(envelope.id, transaction.innerHash, { ledger: transaction.ledger, feeCharged: transaction.feeCharged, hash: transaction.hash });
      } else if (envelope.status === 'failed') {
        this.logger.error({ hash: transaction.innerHash, ledger: transaction.ledger }, 'an envelope the journal failed is applied on the ledger (npm run ledger:audit)');
      }
    }
    const rows = await this.movementsOf(others);
    return this.deps.movements.commitPage(this.owner, this.options.leaseMs, from, to, rows);
  }

  /** The movements of the token or XLM that touch an account the service holds, as rows. */
  private async movementsOf(transactions: HistoryTransaction[]): Promise<NewMovement[]> {
    if (transactions.every((t) => t.movements.length === 0)) return [];
    const { token, systemKeys } = await this.deps.accounts();
    const counted = (m: LedgerMovement) => [m.asset, m.sent.asset].some((a) => a.issuer === undefined || sameAsset(a, token));
    const candidates = transactions.flatMap((t) => t.movements.filter(counted).map((m) => ({ t, m })));
    const holders = await this.deps.movements.holders([...new Set(candidates.flatMap(({ m }) => [m.from, m.to]))]);
    const system = new Set(systemKeys);
    const held = (key: string) => holders.has(key) || system.has(key);
    return candidates
      .filter(({ m }) => held(m.from) || held(m.to))
      .map(({ t, m }) => {
        const fromUserId = holders.get(m.from) ?? null;
        const toUserId = holders.get(m.to) ?? null;
        const differs = m.sent.stroops !== m.stroops || !sameAsset(m.sent.asset, m.asset);
        return {
          ledgerTransactionId: t.hash,
          operationIndex: m.operationIndex,
          operationType: m.type,
          ledger: t.ledger,
          fromPublicKey: m.from,
          toPublicKey: m.to,
          amountStroops: m.stroops,
          assetCode: m.asset.code,
          sentStroops: differs ? m.sent.stroops : null,
          sentAssetCode: differs ? m.sent.asset.code : null,
          fromUserId,
          toUserId,
          userId: fromUserId ?? toUserId,
          createdAt: t.closedAt,
        };
      });
  }

  /**
   * Where the history starts on the first run: just before the first ledger the journal's first
   * envelope could enter (nothing the service holds existed before it wrote), or, with no envelope
   * yet, the API's newest ledger.
   */
  private async firstLedger(): Promise<number> {
    const first = await this.deps.journal.firstEnvelopeLedger();
    if (first !== undefined) return first - 1;
    return (await this.deps.client.health()).latestLedger;
  }
}
