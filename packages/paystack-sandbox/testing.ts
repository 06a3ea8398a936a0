/**
 * The sandbox on an ephemeral port with ready-made HTTP clients, for tests of code that talks to
 * it (the service's PaystackClient tests): `import { startSandbox } from '@wallet/paystack-sandbox/testing'`.
 * The package's own tests use the same harness. Also the headless Chromium its checkout page is
 * tested with, which the service's browser suites drive too.
 */
export * from './tests/sandbox-harness';
export { findChromium, launchChromium } from './tests/chromium';
