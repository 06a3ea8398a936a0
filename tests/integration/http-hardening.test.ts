import { startLedgerSandbox } from '../helpers/sandboxes';
import { startTestApp, type TestApp } from '../helpers/test-app';

let app: TestApp;
afterEach(async () => {
  await app.close();
});

describe('health', () => {
  it('reports liveness always, and readiness only while the ledger is reachable', async () => {
    const ledger = await startLedgerSandbox();
    try {
      app = await startTestApp(ledger.env);
      await app.http.get('/healthz').expect(200, { status: 'ok' });
      await app.http.get('/readyz').expect(200, { status: 'ready' });
      await ledger.stop();
      await app.http.get('/healthz').expect(200, { status: 'ok' });
      await app.http.get('/readyz').expect(503, { status: 'unavailable' });
    } finally {
      await ledger.stop();
    }
  });
});
