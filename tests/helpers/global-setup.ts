import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { openDatabase } from '../../src/db/client';
import { attachEmbeddedServer, type EmbeddedServer } from '../../src/db/embedded/embedded-server';
import { processRuns } from '../../src/db/embedded/file-lock';
import { findChromium } from '@wallet/paystack-sandbox/testing';

/**
 * Jest's global setup: one embedded PostgreSQL server for the whole run, in a temp directory,
 * with a migrated template database that each worker copies (tests/helpers/database.ts). With
 * TEST_DATABASE_URL every suite runs on that server instead and nothing is started here.
 */

export const TEMPLATE_DATABASE = 'wallet_template';
const RUN_PREFIX = 'wallet-test-pg-';

export interface TestRun {
  server: EmbeddedServer;
  dataDir: string;
}

declare global {
  var walletTestRun: TestRun | undefined;
}

export default async function globalSetup(): Promise<void> {
  // Browser suites find Chromium themselves; resolving it once here unpacks the npm package's
  // copy (when that is the one) before parallel workers could race to do it. A failure is left
  // for the browser suites to report: the others need no browser.
  try {
    process.env.CHROMIUM_PATH ??= findChromium();
  } catch {
    // reported by launchChromium() in the suites that need it
  }
  if (process.env.TEST_DATABASE_URL) return;

  const started = Date.now();
  stopAbandonedRuns();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), RUN_PREFIX));
  fs.writeFileSync(path.join(dataDir, 'runner.pid'), String(process.pid));
  const server = await attachEmbeddedServer({ dataDir, ephemeral: true });
  globalThis.walletTestRun = { server, dataDir };

  const admin = new Client({ connectionString: server.url('postgres') });
  await admin.connect();
  try {
    await admin.query(`create database ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  // Migrations run once, into the template; its connections are closed so it can be copied.
  await (await openDatabase({ url: server.url(TEMPLATE_DATABASE), poolSize: 1 })).close();

  // Workers inherit the environment: the server's maintenance database, to create theirs from.
  process.env.WALLET_TEST_PG_URL = server.url('postgres');
  if (process.env.WALLET_TEST_TIMING) console.log(`\nembedded PostgreSQL for the tests ready in ${Date.now() - started} ms`);
}

/**
 * A run killed before its teardown (Ctrl-C, a crash) leaves its server running, in its own
 * session: those whose Jest process is gone are stopped and their directories removed.
 */
function stopAbandonedRuns(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(RUN_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), name);
    const runner = Number(readOr(path.join(dir, 'runner.pid'), '0'));
    if (runner > 0 && processRuns(runner)) continue;
    const postmaster = Number(readOr(path.join(dir, 'pg', 'postmaster.pid'), '0').split('\n')[0]);
    if (postmaster > 0 && processRuns(postmaster)) {
      try {
        process.kill(postmaster, 'SIGQUIT'); // immediate shutdown: the data is thrown away
      } catch {
        // gone meanwhile
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function readOr(file: string, fallback: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}
