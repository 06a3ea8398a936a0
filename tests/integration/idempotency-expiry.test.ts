import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/db/client';
import { IdempotencyRepository, idempotencyKeyBound } from '../../src/db/repositories/idempotency.repository';
import { idempotencyKeys } from '../../src/db/schema';
import { resetDatabase } from '../helpers/database';
import { testDatabase } from '../helpers/test-app';

// A key lives 24 hours by the database's clock, the one that stamps created_at. A process whose
// clock runs fast must not free a live key: the phone's retry would then sign a second transaction.

const HOUR_MS = 60 * 60 * 1000;
const ROUTE = 'ledger.transfer';

let db: Database;
let repo: IdempotencyRepository;
beforeEach(async () => {
  const database = await testDatabase();
  await resetDatabase(database);
  db = database.db;
  repo = new IdempotencyRepository(db);
});
afterEach(() => {
  jest.restoreAllMocks();
});

/** Keys of one caller, stamped now by the database; returns the caller and each key's entry. */
async function keys(...names: string[]): Promise<{ caller: string; entries: Record<string, string> }> {
  const caller = crypto.randomUUID();
  const entries = Object.fromEntries(names.map((name) => [name, crypto.randomUUID()]));
  await db.insert(idempotencyKeys).values(names.map((key) => ({ callerId: caller, route: ROUTE, key, requestHash: 'a', entryId: entries[key]! })));
  return { caller, entries };
}

/** Sets a key's created_at back by the database's own clock. */
async function age(caller: string, key: string, hours: number): Promise<void> {
  await db.execute(sql`update idempotency_keys set created_at = now() - make_interval(hours => ${hours}::integer) where caller_id = ${caller} and key = ${key}`);
}

/** The process's clock, `offsetMs` away from the true time (the database's), for this test only. */
function processClockOff(offsetMs: number): void {
  const now = Date.now.bind(Date);
  jest.spyOn(Date, 'now').mockImplementation(() => now() + offsetMs);
}

async function storedKeys(): Promise<string[]> {
  return (await db.select({ key: idempotencyKeys.key }).from(idempotencyKeys)).map((r) => r.key).sort();
}

describe('idempotency keys expire after 24 hours', () => {
  it('frees an expired key for a new request and purges expired keys, keeping fresh ones', async () => {
    const { caller, entries } = await keys('old-1', 'old-2', 'fresh');
    await age(caller, 'old-1', 25);
    await age(caller, 'old-2', 25);
    const next = crypto.randomUUID();

    // An expired key answers nothing and binds a new entry; a fresh one stays bound to its entry.
    expect(await repo.find(caller, ROUTE, 'old-1')).toBeUndefined();
    expect(await idempotencyKeyBound(db, { callerId: caller, route: ROUTE, key: 'old-1', requestHash: 'b' }, next)).toBeUndefined();
    expect(await repo.find(caller, ROUTE, 'old-1')).toMatchObject({ requestHash: 'b', entryId: next });
    expect(await idempotencyKeyBound(db, { callerId: caller, route: ROUTE, key: 'fresh', requestHash: 'b' }, next)).toMatchObject({ requestHash: 'a', entryId: entries.fresh });

    await repo.purgeExpired();
    expect(await storedKeys()).toEqual(['fresh', 'old-1']);
  });
});

describe("idempotency keys expire by the database's clock", () => {
  it('keeps a 23-hour-old key live for a process whose clock runs two hours ahead', async () => {
    const { caller, entries } = await keys('live');
    await age(caller, 'live', 23);
    processClockOff(2 * HOUR_MS);

    // The retry finds its key, cannot rebind it to a second entry, and the purge leaves it.
    expect(await repo.find(caller, ROUTE, 'live')).toMatchObject({ entryId: entries.live });
    expect(await idempotencyKeyBound(db, { callerId: caller, route: ROUTE, key: 'live', requestHash: 'a' }, crypto.randomUUID())).toMatchObject({
      entryId: entries.live,
    });
    await repo.purgeExpired();
    expect(await storedKeys()).toEqual(['live']);
  });

  it('expires a key older than 24 hours by the database even for a process whose clock runs behind', async () => {
    const { caller } = await keys('expired', 'live');
    await age(caller, 'expired', 25);
    processClockOff(-3 * HOUR_MS);

    expect(await repo.find(caller, ROUTE, 'expired')).toBeUndefined();
    expect(await repo.find(caller, ROUTE, 'live')).toBeDefined();
    await repo.purgeExpired();
    expect(await storedKeys()).toEqual(['live']);

    const next = crypto.randomUUID();
    await age(caller, 'live', 25);
    expect(await idempotencyKeyBound(db, { callerId: caller, route: ROUTE, key: 'live', requestHash: 'b' }, next)).toBeUndefined();
    expect(await repo.find(caller, ROUTE, 'live')).toMatchObject({ requestHash: 'b', entryId: next });
  });
});
