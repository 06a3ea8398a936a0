import fs from 'node:fs';
import { Client } from 'pg';

/**
 * Earlier versions of this service kept the embedded database with PGlite (PostgreSQL compiled
 * to WebAssembly) in the same DATA_DIR/pg. Its files look like a PostgreSQL 18 data directory,
 * but were written by a 32-bit build: the server refuses them ("database files are incompatible
 * with server"). Such a directory is carried over once: moved aside, dumped by PGlite's own
 * pg_dump (`@electric-sql/pglite-tools`), and loaded into a fresh server. Newer migrations are
 * applied afterwards, as on any start.
 */

/** Whether the server's log says the data directory was written by another build (PGlite's). */
export function isPgliteRefusal(log: string): boolean {
  return /database files are incompatible with server/.test(log);
}

export interface FreshServer {
  initialise(): Promise<void>;
  /** Starts the server, resolving to its port. */
  start(): Promise<number>;
  stop(): Promise<void>;
  url(port: number): string;
  createDatabase(port: number): Promise<void>;
}

/** Carries DATA_DIR/pg over from PGlite; resolves to where the old files were kept. Leaves the server running. */
export async function carryOverPglite(pgDir: string, server: FreshServer): Promise<string> {
  const legacyDir = fs.existsSync(`${pgDir}-pglite`) ? `${pgDir}-pglite-${Date.now()}` : `${pgDir}-pglite`;
  fs.renameSync(pgDir, legacyDir);
  let started = false;
  try {
    const dump = await dumpPglite(legacyDir);
    await server.initialise();
    const port = await server.start();
    started = true;
    await server.createDatabase(port);
    const client = new Client({ connectionString: server.url(port), application_name: 'wallet:import' });
    await client.connect();
    try {
      // One simple-protocol query: the statements run as one transaction, all or nothing.
      await client.query(dump);
    } finally {
      await client.end();
    }
    return legacyDir;
  } catch (err) {
    if (started) await server.stop().catch(() => undefined);
    fs.rmSync(pgDir, { recursive: true, force: true });
    fs.renameSync(legacyDir, pgDir);
    throw new Error(
      `${pgDir} holds the database of this service's earlier PGlite version, and carrying it over to the embedded ` +
        `PostgreSQL server failed: ${err instanceof Error ? err.message : String(err)}. Nothing was changed. ` +
        'Either fix the cause and start again, or carry it over by hand: dump it with PGlite ' +
        "(`pgDump({ pg: await PGlite.create({ dataDir }) })` from @electric-sql/pglite-tools), move DATA_DIR/pg away, " +
        'start the service once, and load the dump into the DATA_DIR/pg server with psql; or move DATA_DIR/pg away to start empty.',
    );
  }
}

/** The whole database as SQL (schema and rows, as INSERTs), made by PGlite's pg_dump. */
async function dumpPglite(dataDir: string): Promise<string> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { pgDump } = await import('@electric-sql/pglite-tools');
  const pg = await PGlite.create({ dataDir });
  try {
    return await (await pgDump({ pg })).text();
  } finally {
    await pg.close();
  }
}
