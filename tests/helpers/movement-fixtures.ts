import crypto from 'node:crypto';
import { ledgerEntries, ledgerMovements, type EntryKind } from '../../src/db/schema';
import type { MovementOperation } from '../../src/domain/ledger-movement';
import type { TestApp } from './test-app';

/** A movement of the service's wallets made elsewhere (not through the service), as the ledger showed it. */
export interface SeenMovement {
  from: string;
  to: string;
  /** The users whose wallets `from` and `to` are; omitted: not a user's wallet. */
  fromUserId?: string;
  toUserId?: string;
  stroops?: bigint;
  assetCode?: string;
  /** When its ledger closed (default: now). */
  at?: Date;
  operationType?: MovementOperation;
}

/**
 * Records a movement in ledger_movements as the ledger follower (src/ledger/ledger-follower.ts)
 * records one it read: one row per operation, owned by the sender's user when the sender is a
 * user, else the receiver's (CONTRACT 12). Returns the row's id: the record's transactionId.
 */
export async function recordSeenMovement(app: TestApp, movement: SeenMovement): Promise<string> {
  const [row] = await app.container.database.db
    .insert(ledgerMovements)
    .values({
      ledgerTransactionId: crypto.randomBytes(32).toString('hex'),
      operationIndex: 0,
      operationType: movement.operationType ?? 'payment',
      ledger: 1,
      fromPublicKey: movement.from,
      toPublicKey: movement.to,
      amountStroops: movement.stroops ?? 10_000_000n,
      assetCode: movement.assetCode ?? 'WLT',
      fromUserId: movement.fromUserId ?? null,
      toUserId: movement.toUserId ?? null,
      userId: movement.fromUserId ?? movement.toUserId ?? null,
      createdAt: movement.at ?? new Date(),
    })
    .returning({ id: ledgerMovements.id });
  return row!.id;
}

/** A journal entry as the service would have committed it, straight into the journal (no ledger write): for lists that need many, at chosen times. */
export interface JournalRecord {
  kind: EntryKind;
  from: string;
  to: string;
  /** The owner (a transfer's sender, a mint's recipient); omitted: nobody's. */
  userId?: string;
  stroops?: bigint;
  at?: Date;
}

/** Writes a confirmed journal entry; returns its id (the record's transactionId). */
export async function insertJournalRecord(app: TestApp, record: JournalRecord): Promise<string> {
  const [row] = await app.container.database.db
    .insert(ledgerEntries)
    .values({
      kind: record.kind,
      status: 'confirmed',
      ledgerTransactionId: crypto.randomBytes(32).toString('hex'),
      fromPublicKey: record.from,
      toPublicKey: record.to,
      amountStroops: record.stroops ?? 10_000_000n,
      assetCode: 'WLT',
      userId: record.userId ?? null,
      createdAt: record.at ?? new Date(),
    })
    .returning({ id: ledgerEntries.id });
  return row!.id;
}
