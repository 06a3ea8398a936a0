import http from 'node:http';
import { drizzle } from 'drizzle-orm/node-postgres';
import { Pool } from 'pg';
import { TransactionRepository } from '../../src/db/repositories/transaction.repository';
import { standardKinds } from '../../src/ledger/kinds/registry';
import * as schema from '../../src/db/schema';
import { transactionPageJson } from '../../src/routes/transaction-record';

/**
 * Ceiling of GET /api/ledger/transactions/:userId (issue 22 item 5): node:http alone answering the
 * page with the service's own code, on the service's database: the repository's statement (the page
 * with the user's count for X-Total-Count) and the route's shaping of a record, through the same
 * driver and pool size. No auth, no validation, no middleware, no logs: what is left is the
 * physical limit of the route on this machine. The bench checks its bytes equal the service's.
 *
 * argv: port, database URL, pool size (the service's DATABASE_POOL_SIZE).
 */
const [port, databaseUrl, poolSize] = [Number(process.argv[2]), process.argv[3]!, Number(process.argv[4] ?? 10)];
const pool = new Pool({ connectionString: databaseUrl, max: poolSize, application_name: 'wallet-bench-ceiling' });
pool.on('error', () => undefined);
const transactions = new TransactionRepository(drizzle(pool, { schema }), standardKinds().recordKinds);

/**
 * One page as the service answers it: LedgerService.transactionPage's statement (the page in
 * array mode with the user's count), then the route's body (transactionPageJson).
 */
async function page(userId: string, limit: number, offset: number): Promise<{ body: string; total: number }> {
  const { rows, total } = await transactions.userPage(userId, limit, offset);
  return { body: transactionPageJson(rows), total };
}

const PATH = /^\/api\/ledger\/transactions\/([0-9a-f-]{36})$/;

http
  .createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://ceiling');
    if (url.pathname === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end('{"status":"ok"}');
      return;
    }
    const userId = PATH.exec(url.pathname)?.[1];
    if (!userId) {
      res.writeHead(404).end();
      return;
    }
    const limit = Number(url.searchParams.get('limit') ?? 100);
    const offset = Number(url.searchParams.get('offset') ?? 0);
    page(userId, limit, offset).then(
      ({ body, total }) => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), 'x-total-count': String(total) });
        res.end(body);
      },
      (err: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(err instanceof Error ? err.message : String(err));
      },
    );
  })
  .listen(port, '127.0.0.1');

process.on('SIGTERM', () => {
  void pool.end().finally(() => process.exit(0));
});
