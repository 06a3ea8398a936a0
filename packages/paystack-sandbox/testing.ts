/**
 * The sandbox on an ephemeral port with ready-made HTTP clients, for tests of code that talks to
 * it (the service's PaystackClient tests): `import { startSandbox } from '@wallet/paystack-sandbox/testing'`.
 * The package's own tests use the same harness.
 */
export * from './tests/sandbox-harness';
