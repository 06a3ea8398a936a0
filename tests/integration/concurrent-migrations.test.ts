import { openDatabase, type DatabaseHandle } from '../../src/db/client';
import { queryDatabase, scratchDatabase } from '../helpers/service-process';

/**
 * Several processes starting on one empty database at once (a cluster's workers, two containers)
 * each migrate it: they take turns, and every one of them starts.
 */
describe('migrations run by several processes at once', () => {
  const handles: DatabaseHandle[] = [];
  afterEach(async () => {
    await Promise.all(handles.splice(0).map((handle) => handle.close()));
  });

  it('migrate an empty database once, every opener starting', async () => {
    const url = await scratchDatabase('concurrent_migrations');

    const opened = await Promise.allSettled([1, 2, 3, 4].map(() => openDatabase({ url, poolSize: 1 })));
    for (const result of opened) if (result.status === 'fulfilled') handles.push(result.value);

    expect(opened.map((result) => (result.status === 'rejected' ? String(result.reason) : 'opened'))).toEqual(['opened', 'opened', 'opened', 'opened']);
    const applied = await queryDatabase<{ count: string }>(url, 'select count(*)::text as count from drizzle.__drizzle_migrations');
    const files = await queryDatabase<{ count: string }>(url, "select count(distinct hash)::text as count from drizzle.__drizzle_migrations");
    expect(applied[0]!.count).toBe(files[0]!.count);
  });
});
