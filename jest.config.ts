import type { Config } from 'jest';

// ts-jest transpiles only (isolatedModules in tsconfig); `npm run typecheck` is the type gate.
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  // One embedded PostgreSQL server per run (unless TEST_DATABASE_URL), a database per worker.
  globalSetup: '<rootDir>/tests/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/tests/helpers/global-teardown.ts',
  setupFiles: ['<rootDir>/tests/helpers/env.ts'],
  setupFilesAfterEnv: ['<rootDir>/tests/helpers/after-env.ts'],
  testTimeout: 30_000,
  maxWorkers: 2,
};

export default config;
