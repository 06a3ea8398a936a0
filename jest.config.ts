import type { Config } from 'jest';

// ts-jest transpiles only (isolatedModules in tsconfig); `npm run typecheck` is the type gate.
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  setupFiles: ['<rootDir>/tests/helpers/env.ts'],
  setupFilesAfterEnv: ['<rootDir>/tests/helpers/after-env.ts'],
  testTimeout: 30_000,
  maxWorkers: 2,
};

export default config;
