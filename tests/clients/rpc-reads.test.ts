import { Account, Asset, Keypair, Networks, Operation, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { LedgerUnavailableError } from '../../src/clients/ledger-errors';
import { RpcClient } from '../../src/clients/rpc.client';
import { answer, startFakeServer, type Behaviour, type FakeServer } from '../helpers/fake-server';
import { eventually } from '../helpers/eventually';
import { PATIENCE_MS } from '../helpers/patience';

/**
 * The RPC adapter's reads against an RPC provider that answers what it should not: a JSON-RPC error,
 * an answer the SDK cannot parse, a NOT_FOUND without the ledgers it covers, a proxy's HTML page.
 * Each is "the ledger is unavailable" (503, try again), never a verdict and never a raw error.
 */
describe('the RPC adapter reads an unexpected RPC answer as unavailable', () => {
  const account = Keypair.random().publicKey();
  const asset = new Asset('WLT', Keypair.random().publicKey());
  const hash = 'ab'.repeat(32);
  let rpc: FakeServer | undefined;

  const clientOf = async (behaviour: Behaviour) => {
    rpc = await startFakeServer(behaviour);
    // its read deadline plays no part (every answer comes at once): it waits as long as the suite
    return new RpcClient({ rpcUrl: rpc.url, networkPassphrase: Networks.TESTNET, readTimeoutMs: PATIENCE_MS });
  };
  /** Answers every JSON-RPC call with `result` (or `error`), echoing its id. */
  const jsonRpc = (reply: { result?: unknown; error?: unknown }): Behaviour => (_req, res, body) => {
    const id = (JSON.parse(body.toString() || '{}') as { id?: unknown }).id ?? 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, ...reply }));
  };

  afterEach(() => rpc?.close());

  /** A payment signed by a new key: its bytes and hash, never applied anywhere. */
  const signedPayment = () => {
    const source = Keypair.random();
    const tx = new TransactionBuilder(new Account(source.publicKey(), '1'), { fee: '100', networkPassphrase: Networks.TESTNET })
      .addOperation(Operation.payment({ destination: account, asset, amount: '1' }))
      .setTimeout(30)
      .build();
    tx.sign(source);
    return tx;
  };

  const unavailable = async (read: Promise<unknown>, message?: RegExp) => {
    const error = await read.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerUnavailableError);
    if (message) expect((error as Error).message).toMatch(message);
  };

  it('a JSON-RPC error answer', async () => {
    const client = await clientOf(jsonRpc({ error: { code: -32603, message: 'internal error' } }));
    await unavailable(client.loadAccount(account, asset));
    await unavailable(client.lookupTransaction(hash));
    await unavailable(client.feeStats());
    await unavailable(client.health());
  });

  it('a NOT_FOUND that does not say which ledgers the instance holds proves nothing', async () => {
    const client = await clientOf(jsonRpc({ result: { status: 'NOT_FOUND', latestLedger: 'soon' } }));
    await unavailable(client.lookupTransaction(hash), /unreadable transaction/);
  });

  it('a NOT_FOUND with its window is absence from exactly that window', async () => {
    const client = await clientOf(jsonRpc({ result: { status: 'NOT_FOUND', latestLedger: 900, latestLedgerCloseTime: '1', oldestLedger: 100, oldestLedgerCloseTime: '1' } }));
    await expect(client.lookupTransaction(hash)).resolves.toEqual({ kind: 'absent', latestLedger: 900, oldestLedger: 100 });
  });

  it('a found transaction whose result does not decode, or that has none, is no verdict', async () => {
    const found = { status: 'SUCCESS', latestLedger: 900, oldestLedger: 100, ledger: 850, envelopeXdr: 'AAAA' };
    const client = await clientOf(jsonRpc({ result: { ...found, resultXdr: 'bm90IGEgcmVzdWx0' } }));
    await unavailable(client.lookupTransaction(hash), /does not decode/);
    // A new client: behave() drops the kept-alive connection the first one would reuse.
    await rpc!.behave(jsonRpc({ result: found }));
    const again = new RpcClient({ rpcUrl: rpc!.url, networkPassphrase: Networks.TESTNET, readTimeoutMs: PATIENCE_MS });
    await unavailable(again.lookupTransaction(hash), /unreadable transaction/);
  });

  it('a found transaction is told without the window a NOT_FOUND needs, and its metadata is never read', async () => {
    const tx = signedPayment();
    const result = new xdr.TransactionResult({ feeCharged: xdr.Int64.fromString('300'), result: xdr.TransactionResultResult.txSuccess([]), ext: new xdr.TransactionResultExt(0) });
    const client = await clientOf(jsonRpc({ result: { status: 'SUCCESS', ledger: 850, envelopeXdr: tx.toEnvelope().toXDR('base64'), resultXdr: result.toXDR('base64'), resultMetaXdr: 'not xdr' } }));
    await expect(client.lookupTransaction(hash)).resolves.toEqual({ kind: 'found', transaction: { hash: tx.hash().toString('hex'), successful: true, ledger: 850, feeCharged: 300n } });
  });

  it('ledger entries the SDK cannot parse, and an unhealthy instance', async () => {
    const client = await clientOf(jsonRpc({ result: { entries: [{ key: 'AAAA', xdr: 'not xdr' }], latestLedger: 5, status: 'unhealthy' } }));
    await unavailable(client.loadAccount(account, asset));
    await unavailable(client.health());
  });

  it('a provider that accepts every call and never answers: each read ends at its deadline, and the call is closed', async () => {
    rpc = await startFakeServer(() => undefined);
    // The deadline under test; the suite's patience bounds the test, never this figure.
    const client = new RpcClient({ rpcUrl: rpc.url, networkPassphrase: Networks.TESTNET, readTimeoutMs: 300 });
    await unavailable(client.loadAccount(account, asset), /ETIMEDOUT/);
    await unavailable(client.health(), /ETIMEDOUT/);
    // A submission's send unanswered is unclear (its bytes left), never "not sent".
    const tx = signedPayment();
    await expect(client.submit(tx)).resolves.toEqual({ kind: 'unclear', reason: expect.stringMatching(/sendTransaction failed: ETIMEDOUT/) });
    const closed = await eventually(async () => (rpc!.requests.every((r) => r.fate !== 'open') ? rpc!.requests : undefined), 'the client to close every call it sent');
    expect(closed.map((r) => r.fate)).toEqual(['abandoned', 'abandoned', 'abandoned']);
  });

  it('a 502 HTML page from a proxy', async () => {
    const client = await clientOf(answer(502, '<html>Bad Gateway</html>', 'text/html'));
    await unavailable(client.loadAccount(account, asset));
    await unavailable(client.lookupTransaction(hash));
    await unavailable(client.feeStats());
  });
});
