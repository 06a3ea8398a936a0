import crypto from 'node:crypto';
import { IdempotencyRepository } from '../../src/db/repositories/idempotency.repository';
import { idempotencyKeys } from '../../src/db/schema';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
beforeEach(async () => {
  app = await startTestApp();
});
afterEach(async () => {
  await app.close();
});

describe('idempotency keys expire after 24 hours', () => {
  it('frees an expired key for a new request and purges expired keys, keeping fresh ones', async () => {
    const db = app.container.database.db;
    const repo = new IdempotencyRepository(db);
    const caller = crypto.randomUUID();
    const old = new Date(Date.now() - 25 * 60 * 60 * 1000);
    const [first, second, third, next] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    await db.insert(idempotencyKeys).values([
      { callerId: caller, route: 'ledger.transfer', key: 'old-1', requestHash: 'a', entryId: first, createdAt: old },
      { callerId: caller, route: 'ledger.transfer', key: 'old-2', requestHash: 'a', entryId: second, createdAt: old },
      { callerId: caller, route: 'ledger.transfer', key: 'fresh', requestHash: 'a', entryId: third },
    ]);

    // An expired key answers nothing and binds a new entry; a fresh one stays bound to its entry.
    expect(await repo.find(caller, 'ledger.transfer', 'old-1')).toBeUndefined();
    expect(await repo.bind(db, { callerId: caller, route: 'ledger.transfer', key: 'old-1', requestHash: 'b' }, next)).toBeUndefined();
    expect(await repo.find(caller, 'ledger.transfer', 'old-1')).toMatchObject({ requestHash: 'b', entryId: next });
    expect(await repo.bind(db, { callerId: caller, route: 'ledger.transfer', key: 'fresh', requestHash: 'b' }, next)).toMatchObject({ requestHash: 'a', entryId: third });

    await repo.purgeExpired();
    const keys = (await db.select({ key: idempotencyKeys.key }).from(idempotencyKeys)).map((r) => r.key).sort();
    expect(keys).toEqual(['fresh', 'old-1']);
  });
});
