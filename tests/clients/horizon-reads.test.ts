import { Asset, Keypair, Networks } from '@stellar/stellar-sdk';
import { LedgerUnavailableError } from '../../src/clients/ledger-errors';
import { HorizonClient } from '../../src/clients/horizon.client';
import { answer, startFakeServer, type Behaviour, type FakeServer } from '../helpers/fake-server';
import { PATIENCE_MS } from '../helpers/patience';

/**
 * The Horizon adapter's reads against a Horizon that answers what it should not: every read is
 * validated, so an answer the service can not read is "the ledger is unavailable" (503, try again),
 * never a raw parse error, and a 404 is "not there" only where a resource may be absent.
 */
describe('the Horizon adapter reads an unexpected Horizon answer as unavailable', () => {
  const account = Keypair.random().publicKey();
  const asset = new Asset('WLT', Keypair.random().publicKey());
  let horizon: FakeServer | undefined;

  // A Horizon of its own per test: changing a fake server's answer drops its kept-alive
  // connections, and a read on a dropped one is a reset, not the answer under test.
  const clientOf = async (behaviour: Behaviour) => {
    horizon = await startFakeServer(behaviour);
    // its read deadline plays no part (every answer comes at once): it waits as long as the suite
    return new HorizonClient({ horizonUrl: horizon.url, networkPassphrase: Networks.TESTNET, readTimeoutMs: PATIENCE_MS, retentionLedgers: 1000 });
  };

  afterEach(() => horizon?.close());

  const unavailable = async (read: Promise<unknown>, message: RegExp) => {
    const error = await read.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerUnavailableError);
    expect((error as Error).message).toMatch(message);
  };

  it('an account, a transaction, the root, fee stats and a payments page that do not match their schema', async () => {
    const malformedPage = JSON.stringify({ _links: {}, _embedded: { records: [{ id: '1', type: 'payment' }] } });
    const malformed = JSON.stringify({ id: account, sequence: 'not a number', balances: [] });
    const client = await clientOf((req, res, body) => answer(200, req.url?.includes('/payments') ? malformedPage : malformed)(req, res, body));
    await unavailable(client.loadAccount(account), /unreadable account/);
    await unavailable(client.lookupTransaction('ab'.repeat(32)), /unreadable transaction/);
    await unavailable(client.latestLedger(), /unreadable root/);
    await unavailable(client.feeStats(), /unreadable fee stats/);
    await unavailable(client.tokenPaymentsOf(account, asset), /unreadable payments page/);
  });

  it('a 404: no such account (undefined), no payments, but the root and fee stats must exist, and a missing transaction needs its Latest-Ledger', async () => {
    const client = await clientOf(answer(404, JSON.stringify({ status: 404, title: 'Resource Missing' })));
    await expect(client.loadAccount(account)).resolves.toBeUndefined();
    // A 404 that does not say which ledgers the instance has seen proves nothing about a hash.
    await unavailable(client.lookupTransaction('ab'.repeat(32)), /without Latest-Ledger/);
    await expect(client.tokenPaymentsOf(account, asset)).resolves.toEqual([]);
    await unavailable(client.latestLedger(), /no root/);
    await unavailable(client.feeStats(), /no fee stats/);
  });

  it('a 502 HTML page from a proxy', async () => {
    const client = await clientOf(answer(502, '<html>Bad Gateway</html>', 'text/html'));
    await unavailable(client.loadAccount(account), /Ledger unavailable/);
    await unavailable(client.feeStats(), /Ledger unavailable/);
  });
});
