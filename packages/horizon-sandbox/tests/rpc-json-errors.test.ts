import { rawRpc } from './rpc-helpers';
import { startSandbox, type SandboxHarness } from './sandbox-harness';

const call = (method: string, params?: unknown, id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

describe('JSON-RPC errors, answered with HTTP 200 as stellar-rpc answers them', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startSandbox();
  });
  afterAll(() => harness.close());

  const errorOf = async (body: string) => {
    const { status, json } = await rawRpc(harness, body);
    expect(status).toBe(200);
    return (json as { id: unknown; error: { code: number; message: string } });
  };

  it('answers a body that is not JSON with -32700', async () => {
    expect((await errorOf('{"jsonrpc": "2.0", "id": 1, ')).error.code).toBe(-32700);
  });

  it('answers what is not a request with -32600', async () => {
    for (const body of ['42', '[]', JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'getHealth' }), JSON.stringify({ jsonrpc: '2.0', id: 1 })]) {
      const answer = await errorOf(body);
      expect(Array.isArray(answer) ? answer[0].error.code : answer.error.code).toBe(-32600);
    }
  });

  it('answers an unknown method with -32601, keeping the request id', async () => {
    const answer = await errorOf(call('getLedgerEntrys', {}, 'abc'));
    expect(answer).toMatchObject({ id: 'abc', error: { code: -32601 } });
  });

  it('answers bad params with -32602 and a message naming what is wrong', async () => {
    const cases: [string, unknown, RegExp][] = [
      ['sendTransaction', {}, /transaction/],
      ['sendTransaction', { transaction: 'not xdr' }, /invalid_xdr/],
      ['getTransaction', { hash: 'abc' }, /hash length/],
      ['getTransaction', { hash: 'zz'.repeat(32) }, /incorrect hash/],
      ['getTransaction', { hash: 'ab'.repeat(32), xdrFormat: 'json' }, /xdrFormat/],
      ['getLedgerEntries', { keys: 'x' }, /keys/],
      ['getLedgerEntries', { keys: ['AAAA!'] }, /cannot unmarshal key value .* at index 0/],
      ['getHealth', { surprise: true }, /invalid parameters/],
    ];
    for (const [method, params, message] of cases) {
      const answer = await errorOf(call(method, params));
      expect(answer.error.code).toBe(-32602);
      expect(answer.error.message).toMatch(message);
    }
  });

  it('answers a batch with one answer per request, and a notification with none', async () => {
    const { json } = await rawRpc(harness, `[${call('getHealth', null, 1)},${call('nope', null, 2)}]`);
    expect(json).toMatchObject([{ id: 1, result: { status: 'healthy' } }, { id: 2, error: { code: -32601 } }]);
    const notification = await rawRpc(harness, JSON.stringify({ jsonrpc: '2.0', method: 'getHealth' }));
    expect(notification).toEqual({ status: 204, json: undefined });
  });
});

describe("Horizon's Latest-Ledger header", () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startSandbox();
  });
  afterAll(() => harness.close());

  it('names the latest ingested ledger on every answer, a 404 of /transactions/:hash included', async () => {
    const root = await fetch(`${harness.url}/`);
    const latest = ((await root.json()) as { history_latest_ledger: number }).history_latest_ledger;
    expect(root.headers.get('latest-ledger')).toBe(String(latest));
    const missing = await fetch(`${harness.url}/transactions/${'cd'.repeat(32)}`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('latest-ledger')).toBe(String(latest));
    expect((await fetch(`${harness.url}/no/such/route`)).headers.get('latest-ledger')).toBe(String(latest));
  });
});
