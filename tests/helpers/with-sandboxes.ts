import { startLedgerSandbox, startPaystackSandbox, type LedgerSandboxOptions, type RunningLedger, type RunningProvider } from './sandboxes';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app';

export interface SandboxesOptions {
  /** The ledger sandbox's settings (the API the app speaks, ledger close time, operation limit...). */
  ledger?: LedgerSandboxOptions;
  /**
   * The app on both sandboxes, started before each test (or once for the file, with `scope:
   * 'file'`); false starts none (the file starts its own, e.g. behind a fake server). `env` is read
   * when the app starts, so it may name servers the file starts in its own beforeAll.
   */
  app?: false | AppSetup;
}

interface AppSetup {
  env?: Record<string, string> | (() => Record<string, string>);
  logLevel?: string;
  options?: TestAppOptions;
  scope?: 'test' | 'file';
}

export interface Sandboxes {
  /** The ledger sandbox, one for the file. A test may stop it: it runs again after each test. */
  ledger: RunningLedger;
  /** The payment provider sandbox, one for the file. */
  provider: RunningProvider;
  /** This test's app, built before it on a reset database and closed after it (with scope 'file': the file's). */
  app: TestApp;
  /**
   * Starts the app with `env` on top of the file's, closing the one before it: a file without an
   * app per test starts its own, and a test can restart the service with other settings
   * (`{ reset: false }` keeps the data it left). Closed like the app it replaces.
   */
  startApp(env?: Record<string, string>, options?: TestAppOptions): Promise<TestApp>;
}

/**
 * The block most integration and fault files open with: the ledger and provider sandboxes for the
 * whole file, and a fresh app for each test. Registers the Jest hooks and returns the three as
 * stand-ins that read through to the running ones, so a file can write
 * `const { ledger, provider, app } = withSandboxes()` at its top and use them in any test.
 */
export function withSandboxes(options: SandboxesOptions = {}): Sandboxes {
  let ledger: RunningLedger | undefined;
  let provider: RunningProvider | undefined;
  let app: TestApp | undefined;
  const appSetup: AppSetup | undefined = options.app === false ? undefined : (options.app ?? {});
  const perFile = appSetup?.scope === 'file';
  const fileEnv = () => (typeof appSetup?.env === 'function' ? appSetup.env() : (appSetup?.env ?? {}));
  const startApp = async (extra: Record<string, string> = {}, appOptions: TestAppOptions = {}) => {
    await app?.close();
    app = undefined;
    app = await startTestApp({ ...ledger!.env, ...provider!.env, ...fileEnv(), ...extra }, appSetup?.logLevel ?? 'silent', { ...appSetup?.options, ...appOptions });
    return app;
  };

  beforeAll(async () => {
    ledger = await startLedgerSandbox(options.ledger);
    provider = await startPaystackSandbox();
    if (appSetup && perFile) await startApp();
  });
  afterAll(async () => {
    await app?.close();
    await ledger?.stop();
    await provider?.stop();
  });
  if (appSetup && !perFile) {
    beforeEach(async () => {
      await startApp();
    });
  }
  afterEach(async () => {
    // Back up before the app closes, so it can hand over what it has in flight.
    await ledger?.start();
    if (perFile) return;
    await app?.close();
    app = undefined;
  });

  return {
    ledger: readThrough(() => ledger, 'the ledger sandbox'),
    provider: readThrough(() => provider, 'the provider sandbox'),
    app: readThrough(() => app, "this test's app"),
    startApp,
  };
}

/** An object whose every property is read from `current()` at the time of use. */
function readThrough<T extends object>(current: () => T | undefined, what: string): T {
  const target = () => {
    const value = current();
    if (value === undefined) throw new Error(`${what} is not running here (only inside a test or a hook after withSandboxes' own)`);
    return value;
  };
  return new Proxy({} as T, {
    get: (_, key) => Reflect.get(target(), key),
    has: (_, key) => Reflect.has(target(), key),
  });
}
