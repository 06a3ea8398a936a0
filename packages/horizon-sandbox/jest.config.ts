import type { Config } from 'jest';

// Its own project: the service's `npm test` runs it as one of its jest projects, and
// `npm test -w @wallet/horizon-sandbox` runs it alone. No database, no service.
const config: Config = {
  displayName: 'horizon-sandbox',
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  testTimeout: 30_000,
};

export default config;
