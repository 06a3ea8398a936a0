import { and, asc, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Database } from '../client';
import { archivedWallets, ledgerFollowCursor, ledgerFollowGaps, ledgerMovements, wallets } from '../schema';
import { walletEventsOf, type EventAppender } from './event.repository';
import { msFromNow } from './leased-claims';

export type MovementRow = typeof ledgerMovements.$inferSelect;
export type NewMovement = Omit<typeof ledgerMovements.$inferInsert, 'id' | 'recordedAt'>;
export type GapRow = typeof ledgerFollowGaps.$inferSelect;

/** Where the follower stands (ledger_follow_cursor): the API's cursor and the last ledger wholly read. */
export interface FollowPosition {
  cursor: string | undefined;
  ledger: number;
}

/** The one follower's row: there is one history to follow. */
const FOLLOWER = 'ledger';

/**
 * The ledger follower's tables (src/db/movement-schema.ts): movements made outside the service,
 * the follower's position under a lease, and the gaps it could not read. Every write that moves
 * the position compares it with where the caller started (a process that lost its lease, or a
 * page read twice, changes nothing).
 */
export class MovementRepository {
  constructor(
    private readonly db: Database,
    private readonly events: EventAppender,
  ) {}

  /**
   * The position, leased to `owner` until `leaseMs` from now; undefined while another process holds
   * the lease. The first call ever starts the history at `firstLedger()` (asked only then).
   */
  async lease(owner: string, leaseMs: number, firstLedger: () => Promise<number>): Promise<FollowPosition | undefined> {
    const [existing] = await this.db.select({ name: ledgerFollowCursor.name }).from(ledgerFollowCursor).where(eq(ledgerFollowCursor.name, FOLLOWER));
    if (!existing) {
      const ledger = await firstLedger();
      await this.db.insert(ledgerFollowCursor).values({ name: FOLLOWER, cursor: null, ledger, leaseUntil: new Date(0) }).onConflictDoNothing();
    }
    const [row] = await this.db
      .update(ledgerFollowCursor)
      .set({ leaseOwner: owner, leaseUntil: msFromNow(leaseMs) })
      .where(and(eq(ledgerFollowCursor.name, FOLLOWER), sql`(${ledgerFollowCursor.leaseOwner} = ${owner} or ${ledgerFollowCursor.leaseUntil} < now())`))
      .returning({ cursor: ledgerFollowCursor.cursor, ledger: ledgerFollowCursor.ledger });
    return row ? { cursor: row.cursor ?? undefined, ledger: row.ledger } : undefined;
  }

  /** Gives the lease up (a process stopping): another may follow at once. */
  async release(owner: string): Promise<void> {
    await this.db
      .update(ledgerFollowCursor)
      .set({ leaseOwner: null, leaseUntil: new Date(0) })
      .where(and(eq(ledgerFollowCursor.name, FOLLOWER), eq(ledgerFollowCursor.leaseOwner, owner)));
  }

  /** The position as stored (undefined before the follower first ran), for metrics and the audit. */
  async position(): Promise<FollowPosition | undefined> {
    const [row] = await this.db.select().from(ledgerFollowCursor).where(eq(ledgerFollowCursor.name, FOLLOWER));
    return row ? { cursor: row.cursor ?? undefined, ledger: row.ledger } : undefined;
  }

  /**
   * The page's movements and the position after it, in one transaction, only if `owner` still
   * holds the lease and the position is still `from`: the position row is locked by the update
   * first, so a second process committing the same page waits, then finds it moved and records
   * nothing. A movement already recorded (the same operation) is not recorded again.
   */
  async commitPage(owner: string, leaseMs: number, from: FollowPosition, to: FollowPosition, movements: NewMovement[]): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const moved = await tx
        .update(ledgerFollowCursor)
        .set({ cursor: to.cursor ?? null, ledger: to.ledger, leaseUntil: msFromNow(leaseMs), updatedAt: new Date() })
        .where(and(eq(ledgerFollowCursor.name, FOLLOWER), eq(ledgerFollowCursor.leaseOwner, owner), ...samePosition(from)))
        .returning({ ledger: ledgerFollowCursor.ledger });
      if (moved.length === 0) return false;
      if (movements.length === 0) return true;
      // Only the movements this page records for the first time tell their users (a page read again records nothing).
      const recorded = await tx.insert(ledgerMovements).values(movements).onConflictDoNothing().returning();
      await this.events.append(tx, recorded.flatMap(movementEvents));
      return true;
    });
  }

  /**
   * The API no longer holds the ledgers after `from` up to `oldestLedger - 1`: they are recorded as
   * a gap (the open gap that ends at `from` grows) and the position moves to the first ledger it
   * holds, in one transaction, under the same conditions as commitPage.
   */
  async recordGap(owner: string, from: FollowPosition, oldestLedger: number): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const moved = await tx
        .update(ledgerFollowCursor)
        .set({ cursor: null, ledger: oldestLedger - 1, updatedAt: new Date() })
        .where(and(eq(ledgerFollowCursor.name, FOLLOWER), eq(ledgerFollowCursor.leaseOwner, owner), ...samePosition(from)))
        .returning({ ledger: ledgerFollowCursor.ledger });
      if (moved.length === 0) return false;
      // A window that moved on while the follower caught up leaves the next stretch right after the
      // last one: one gap, grown, for the operator to resolve once.
      const grown = await tx
        .update(ledgerFollowGaps)
        .set({ lastLedger: oldestLedger - 1 })
        .where(and(isNull(ledgerFollowGaps.resolvedAt), eq(ledgerFollowGaps.lastLedger, from.ledger)))
        .returning({ id: ledgerFollowGaps.id });
      if (grown.length === 0) await tx.insert(ledgerFollowGaps).values({ firstLedger: from.ledger + 1, lastLedger: oldestLedger - 1 }).onConflictDoNothing();
      return true;
    });
  }

  /** The users whose wallets (or archived wallets) these keys are: key -> user id. */
  async holders(publicKeys: string[]): Promise<Map<string, string>> {
    if (publicKeys.length === 0) return new Map();
    const live = await this.db.select({ key: wallets.publicKey, userId: wallets.userId }).from(wallets).where(inArray(wallets.publicKey, publicKeys));
    const archived = await this.db.select({ key: archivedWallets.publicKey, userId: archivedWallets.userId }).from(archivedWallets).where(inArray(archivedWallets.publicKey, publicKeys));
    return new Map([...archived, ...live].map((h) => [h.key, h.userId]));
  }

  async openGaps(): Promise<GapRow[]> {
    return this.db.select().from(ledgerFollowGaps).where(isNull(ledgerFollowGaps.resolvedAt)).orderBy(asc(ledgerFollowGaps.firstLedger));
  }

  async countOpenGaps(): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(ledgerFollowGaps).where(isNull(ledgerFollowGaps.resolvedAt));
    return row?.n ?? 0;
  }

  /** An operator's word on a gap (what was done about the ledgers it names). False when it is unknown or resolved already. */
  async resolveGap(id: string, resolution: string): Promise<boolean> {
    const rows = await this.db
      .update(ledgerFollowGaps)
      .set({ resolvedAt: new Date(), resolution })
      .where(and(eq(ledgerFollowGaps.id, id), isNull(ledgerFollowGaps.resolvedAt)))
      .returning({ id: ledgerFollowGaps.id });
    return rows.length > 0;
  }

  async all(): Promise<MovementRow[]> {
    return this.db.select().from(ledgerMovements).orderBy(asc(ledgerMovements.ledger), asc(ledgerMovements.ledgerTransactionId), asc(ledgerMovements.operationIndex));
  }
}

/** A followed movement's wallet events, in the order the ledger applied it. */
function movementEvents(row: MovementRow) {
  return walletEventsOf({
    transactionId: row.id,
    ledgerTransactionId: row.ledgerTransactionId,
    from: row.fromPublicKey,
    to: row.toPublicKey,
    stroops: row.amountStroops,
    assetCode: row.assetCode,
    ...(row.sentStroops !== null && row.sentAssetCode !== null ? { sent: { stroops: row.sentStroops, assetCode: row.sentAssetCode } } : {}),
    origin: 'ledger',
  });
}

/** The position compared as stored: the cursor null-safe. */
function samePosition(from: FollowPosition) {
  return [
    from.cursor === undefined ? isNull(ledgerFollowCursor.cursor) : eq(ledgerFollowCursor.cursor, from.cursor),
    eq(ledgerFollowCursor.ledger, from.ledger),
  ];
}
