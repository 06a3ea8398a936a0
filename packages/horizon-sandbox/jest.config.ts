import type { Config } from 'jest';

/**
 * How long a test waits for what it needs before it fails naming it (tests/patience.ts): ten
 * minutes, as the service's suite, so a busy machine only makes a run slower. The test timeout is a
 * minute more (run from the service's root, its jest.config.ts sets the same).
 */
const PATIENCE_MS = 10 * 60 * 1000;

// Its own project: the service's `npm test` runs it as one of its jest projects, and
// `npm test -w @wallet/horizon-sandbox` runs it alone. No database, no service.
const config: Config = {
  displayName: 'horizon-sandbox',
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  globals: { PATIENCE_MS },
  testTimeout: PATIENCE_MS + 60_000,
};

export default config;
