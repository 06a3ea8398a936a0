import { Account, Asset, Keypair, Operation, TimeoutInfinite, TransactionBuilder } from '@stellar/stellar-sdk';
import { SANDBOX_NETWORK_PASSPHRASE } from '@wallet/horizon-sandbox';
import type { JsonRpcHttp } from '../../src/clients/json-rpc-http';
import { RpcClient } from '../../src/clients/rpc.client';
import { PATIENCE_MS } from '../helpers/patience';
import { startLedgerSandbox, type RunningLedger } from '../helpers/sandboxes';

/**
 * An RPC provider one protocol ahead of the SDK: getTransaction's metadata comes in a
 * TransactionMeta version this SDK does not know, as protocol 23's v4 did for SDKs before it
 * (js-stellar-sdk#1185: "Bad union switch: 4" for every applied transaction). The service never
 * reads the metadata, so an applied or failed transaction must still be told as one; before, every
 * confirmation through such a provider waited as unclear until the submit deadline.
 *
 * The sandbox applies the envelopes; between it and the client, each getTransaction answer's
 * resultMetaXdr is replaced by a TransactionMeta of an arm no SDK has (switch 99).
 */
let ledger: RunningLedger;
beforeAll(async () => {
  ledger = await startLedgerSandbox({ ledgerCloseMs: 0 });
});
afterAll(() => ledger.stop());

const FUTURE_META = Buffer.from([0, 0, 0, 99, 0, 0, 0, 0]).toString('base64');

/** A client whose getTransaction answers carry metadata from the future; counts the answers it changed. */
function clientAheadOfItsSdk(): { client: RpcClient; metasReplaced: () => number } {
  const client = new RpcClient({ rpcUrl: ledger.rpcUrl, networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, readTimeoutMs: PATIENCE_MS, submitTimeoutMs: PATIENCE_MS });
  const server = client.server as unknown as { httpClient: JsonRpcHttp };
  const real = server.httpClient;
  let replaced = 0;
  server.httpClient = {
    post: async (url, body) => {
      const answer = await real.post(url, body);
      const result = (answer.data as { result?: { resultMetaXdr?: string } }).result;
      if ((body as { method?: string }).method === 'getTransaction' && result?.resultMetaXdr) {
        result.resultMetaXdr = FUTURE_META;
        replaced++;
      }
      return answer;
    },
  };
  return { client, metasReplaced: () => replaced };
}

async function funded(): Promise<Keypair> {
  const pair = Keypair.random();
  const res = await fetch(`${ledger.url}/friendbot?addr=${pair.publicKey()}`);
  expect(res.ok).toBe(true);
  return pair;
}

async function payment(client: RpcClient, source: Keypair, destination: string, asset: Asset) {
  const loaded = (await client.loadAccount(source.publicKey()))!;
  const tx = new TransactionBuilder(new Account(source.publicKey(), loaded.sequence), { fee: '100', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE })
    .addOperation(Operation.payment({ destination, asset, amount: '1' }))
    .setTimeout(TimeoutInfinite)
    .build();
  tx.sign(source);
  return tx;
}

it('the metadata this SDK cannot decode is not read: the SDK itself refuses the answer', async () => {
  const { client, metasReplaced } = clientAheadOfItsSdk();
  const [sender, receiver] = [await funded(), await funded()];
  const tx = await payment(client, sender, receiver.publicKey(), Asset.native());
  expect(await client.submit(tx)).toMatchObject({ kind: 'applied' });
  // What the provider answers is beyond the SDK's own parse: that is the failure this suite is about.
  await expect(client.server.getTransaction(tx.hash().toString('hex'))).rejects.toThrow(/union switch/);
  expect(metasReplaced()).toBeGreaterThanOrEqual(2);
});

it('an applied envelope is answered applied, with its ledger and fee, and is found by its hash', async () => {
  const { client, metasReplaced } = clientAheadOfItsSdk();
  const [sender, receiver] = [await funded(), await funded()];
  const tx = await payment(client, sender, receiver.publicKey(), Asset.native());
  const hash = tx.hash().toString('hex');

  const answer = await client.submit(tx);
  expect(answer).toMatchObject({ kind: 'applied', hash, feeCharged: 100n });
  const found = await client.lookupTransaction(hash);
  expect(found).toEqual({ kind: 'found', transaction: { hash, successful: true, ledger: (answer as { ledger: number }).ledger, feeCharged: 100n } });
  expect(metasReplaced()).toBeGreaterThanOrEqual(2);
});

it('a failed envelope is answered refused with its codes, and is found as failed', async () => {
  const { client, metasReplaced } = clientAheadOfItsSdk();
  const [sender, receiver] = [await funded(), await funded()];
  // A token the receiver does not trust: core takes the envelope, the ledger fails its payment.
  const token = new Asset('FUT', (await funded()).publicKey());
  const tx = await payment(client, sender, receiver.publicKey(), token);
  const hash = tx.hash().toString('hex');

  const answer = await client.submit(tx);
  expect(answer).toMatchObject({ kind: 'refused', error: { transactionCode: 'tx_failed', operationCodes: ['op_no_trust'] } });
  expect(await client.lookupTransaction(hash)).toMatchObject({ kind: 'found', transaction: { hash, successful: false, feeCharged: 100n } });
  expect(metasReplaced()).toBeGreaterThanOrEqual(2);
});
