import type { Config } from 'jest';

/**
 * How long a test waits for what it needs before it fails naming it (tests/helpers/patience.ts):
 * ten minutes, so a machine starved by other work only makes the run slower. The test timeout is a
 * minute more, so eventually() gives up first, with its message. Defined here, not imported: this
 * file must load as an ES module too (Node 22.18+), where a relative TypeScript import does not resolve.
 */
const PATIENCE_MS = 10 * 60 * 1000;

/** Dependencies published only as ES modules (see `transform`). */
const ESM_ONLY = ['pg-boss', 'serialize-error', 'non-error'];
/**
 * Jest requires ES modules itself from Node 24.9 on (require(esm)), and then runs a file of a
 * `"type": "module"` package as a module whatever a transform made of it: compiled to CommonJS
 * there, it fails (`exports is not defined`). Compiled only where Jest cannot require them.
 */
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const JEST_REQUIRES_ESM = major > 24 || (major === 24 && minor >= 9);
const esmOnly = JEST_REQUIRES_ESM ? {} : { [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: ['ts-jest', { diagnostics: false, tsconfig: { allowJs: true, module: 'commonjs' } }] };

// ts-jest transpiles only (isolatedModules in tsconfig); `npm run typecheck` is the type gate.
const service: Config = {
  displayName: 'service',
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
    // The job queue (pg-boss) and two of its dependencies ship only as ES modules, which Jest's
    // CommonJS runtime cannot require on Node 20 and 22: compiled to CommonJS for the tests alone
    // there (Node loads them as they are when the service runs; Jest on Node 24.9+ too).
    ...esmOnly,
  },
  transformIgnorePatterns: JEST_REQUIRES_ESM ? ['/node_modules/'] : [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  // One embedded PostgreSQL server per run (unless TEST_DATABASE_URL), a database per worker.
  globalSetup: '<rootDir>/tests/helpers/global-setup.ts',
  globalTeardown: '<rootDir>/tests/helpers/global-teardown.ts',
  setupFiles: ['<rootDir>/tests/helpers/env.ts'],
  setupFilesAfterEnv: ['<rootDir>/tests/helpers/after-env.ts'],
  globals: { PATIENCE_MS },
};

const config: Config = {
  // The service's suites, and each workspace's own (packages/*/jest.config.ts), in one run.
  projects: [service, '<rootDir>/packages/*/jest.config.ts'],
  // The only test deadline (no file sets its own): the suite's patience and a margin.
  testTimeout: PATIENCE_MS + 60_000,
  // Tests mostly wait (ledger closes, HTTP to the sandboxes, the database server in its own
  // process): 3 workers on 2 cores measured 86 s against 123 s with 2; 4 was slower (BENCHMARKS.md).
  maxWorkers: 3,
};

export default config;
