import { sql } from 'drizzle-orm';
import { openDatabase, type DatabaseHandle } from '../../src/db/client';
import { queryRows } from '../helpers/database-state';
import { openTestDatabase, testDatabaseUrl } from '../helpers/database';

/**
 * Advisory locks (DatabaseHandle.withLock, src/db/client.ts) between two processes on one database,
 * each its own handle with its own lock session: a key held by one is taken by the other only once
 * released; keys never wait for each other.
 */
let first: DatabaseHandle;
let second: DatabaseHandle;
beforeAll(async () => {
  first = await openTestDatabase();
  second = await openDatabase({ url: await testDatabaseUrl(), poolSize: 2 });
});
afterAll(async () => {
  await second.close();
  await first.close();
});

function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** How many advisory locks PostgreSQL shows granted in this test's database (other workers use others). */
async function advisoryLocksHeld(handle: DatabaseHandle): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    handle,
    sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())`,
  );
  return Number(row!.n);
}

it('a key held by one process is taken by the other only after it is released', async () => {
  const order: string[] = [];
  const holding = gate();
  const held = first.withLock('account:A', async () => {
    order.push('first in');
    await holding.opened;
    order.push('first out');
  });
  while ((await advisoryLocksHeld(first)) < 1) await new Promise((resolve) => setTimeout(resolve, 5));
  const waiting = second.withLock('account:A', async () => {
    order.push('second in');
  });
  // The second process has asked (and been refused) at least once before the first lets go.
  await new Promise((resolve) => setTimeout(resolve, 50));
  holding.open();
  await Promise.all([held, waiting]);
  expect(order).toEqual(['first in', 'first out', 'second in']);
});

it('keys do not wait for each other on the session that holds them', async () => {
  const order: string[] = [];
  const holding = gate();
  const held = first.withLock('account:held', async () => {
    order.push('held in');
    await holding.opened;
    order.push('held out');
  });
  // Twenty other keys, on the same session as the held one; each runs while it is held.
  await Promise.all(Array.from({ length: 20 }, (_, i) => first.withLock(`account:other-${i}`, async () => void order.push(`other ${i}`))));
  holding.open();
  await held;
  expect(order[0]).toBe('held in');
  expect(order.at(-1)).toBe('held out');
  expect(order).toHaveLength(22);
});

it('never lets two holders of one key in at once, across processes and within one (20 keys, 10 callers each)', async () => {
  const inside = new Map<string, number>();
  let mostAtOnce = 0;
  const callers = [];
  for (let k = 0; k < 20; k++) {
    const key = `account:${k}`;
    for (let c = 0; c < 10; c++) {
      callers.push((c % 2 === 0 ? first : second).withLock(key, async () => {
        inside.set(key, (inside.get(key) ?? 0) + 1);
        mostAtOnce = Math.max(mostAtOnce, inside.get(key)!);
        await new Promise((resolve) => setImmediate(resolve));
        inside.set(key, inside.get(key)! - 1);
      }));
    }
  }
  await Promise.all(callers);
  expect(mostAtOnce).toBe(1);
  expect(await advisoryLocksHeld(first)).toBe(0);
});
