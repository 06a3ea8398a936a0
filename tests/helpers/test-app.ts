import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import request from 'supertest';
import { loadConfig } from '../../src/config/env';
import { buildContainer, type Container } from '../../src/container';
import type { DatabaseHandle } from '../../src/db/client';
import { createLogger } from '../../src/logger';
import { openTestDatabase, resetDatabase } from './database';
import { PATIENCE_MS } from './patience';

export interface TestApp {
  container: Container;
  http: ReturnType<typeof request>;
  dataDir: string;
  /** Every log line the app wrote, for tests that inspect logging. */
  logs: string[];
  close(): Promise<void>;
}

export const TEST_JWT_SECRET = 'test-jwt-secret-that-is-long-enough-for-hs256!!';
export const TEST_WALLET_KEY = crypto.createHash('sha256').update('test wallet key').digest('base64');

let shared: DatabaseHandle | undefined;

/** The test file's database, opened once and emptied before each test that asks for it. */
export async function testDatabase(): Promise<DatabaseHandle> {
  shared ??= await openTestDatabase();
  return shared;
}

export async function closeTestDatabase(): Promise<void> {
  await shared?.close();
  shared = undefined;
}

export interface TestAppOptions {
  /** false builds the app on the file's database as it is: a second process, or a restart. Default true. */
  reset?: boolean;
  /**
   * Container options the environment cannot set: how long a signup waits for its wallet's
   * activation, and a verified payment for its mint, before answering. Here the suite's patience
   * unless a test sets them (the service's 5 s and 10 s are deadlines a busy machine can pass: the
   * answer then comes before the wallet is active or the tokens are there, and a test that goes on
   * to use them fails on a race it did not mean to test). A ledger that is down still answers at
   * once: the wait ends when the write does, given up or not.
   */
  signupWaitMs?: number;
  mintWaitMs?: number;
  /** The clock admin one-time codes are checked against (a test picks the TOTP time step); the real one otherwise. */
  totpClock?: () => number;
}

/**
 * The real application on the file's database as it is (no reset): a second process of the
 * service, or the same one restarted with other configuration.
 */
export function startAppKeepingData(env: Record<string, string> = {}, logLevel = 'silent', options: Omit<TestAppOptions, 'reset'> = {}): Promise<TestApp> {
  return startTestApp(env, logLevel, { ...options, reset: false });
}

/**
 * Builds the real application (every layer, real database) around the file's database, with
 * configuration as the environment would give it. Logs go to memory at `logLevel` (default silent).
 */
export async function startTestApp(env: Record<string, string> = {}, logLevel = 'silent', options: TestAppOptions = {}): Promise<TestApp> {
  const database = await testDatabase();
  if (options.reset !== false) await resetDatabase(database);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wallet-test-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    JWT_SECRET: TEST_JWT_SECRET,
    WALLET_ENCRYPTION_KEY: TEST_WALLET_KEY,
    AUTH_RATE_LIMIT: '0',
    CALLBACK_RATE_LIMIT: '0',
    WEBHOOK_RATE_LIMIT: '0',
    BCRYPT_COST: '4',
    PASSWORD_HASH_THREADS: '2',
    LOG_LEVEL: logLevel,
    // Outside systems default to a closed port: a test that needs one starts it and says so.
    ...(env.STELLAR_RPC_URL || env.HORIZON_URL ? {} : { STELLAR_RPC_URL: 'http://127.0.0.1:9' }),
    STELLAR_NETWORK_PASSPHRASE: 'Closed Test Network',
    PAYSTACK_SECRET_KEY: 'sk_test_unreachable',
    PAYSTACK_BASE_URL: 'http://127.0.0.1:9',
    ...env,
  });
  const logs: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = createLogger({ level: config.logLevel, destination });
  const container = await buildContainer(config, logger, {
    database,
    signupWaitMs: options.signupWaitMs ?? PATIENCE_MS,
    mintWaitMs: options.mintWaitMs ?? PATIENCE_MS,
    totpClock: options.totpClock,
  });
  let closing: Promise<void> | undefined;
  return {
    container,
    http: request(container.app),
    dataDir,
    logs,
    // Once: a test that stops the app itself leaves the hooks nothing to do.
    close() {
      closing ??= container.close().then(() => fs.rmSync(dataDir, { recursive: true, force: true }));
      return closing;
    },
  };
}
