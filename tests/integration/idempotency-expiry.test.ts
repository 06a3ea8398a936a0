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
    await db.insert(idempotencyKeys).values([
      { callerId: caller, route: 'ledger.transfer', key: 'old-1', requestHash: 'a', responseStatus: 200, responseBody: '{}', createdAt: old },
      { callerId: caller, route: 'ledger.transfer', key: 'old-2', requestHash: 'a', responseStatus: 200, responseBody: '{}', createdAt: old },
      { callerId: caller, route: 'ledger.transfer', key: 'fresh', requestHash: 'a', responseStatus: 200, responseBody: '{}' },
    ]);

    expect(await repo.claim(caller, 'ledger.transfer', 'old-1', 'b')).toBe('claimed');
    expect(await repo.claim(caller, 'ledger.transfer', 'fresh', 'b')).toMatchObject({ requestHash: 'a', responseStatus: 200 });

    await repo.purgeExpired();
    const keys = (await db.select({ key: idempotencyKeys.key }).from(idempotencyKeys)).map((r) => r.key).sort();
    expect(keys).toEqual(['fresh', 'old-1']);
  });
});
