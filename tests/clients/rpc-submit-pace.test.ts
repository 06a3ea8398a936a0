import { Account, Keypair, Operation, Asset, TimeoutInfinite, TransactionBuilder } from '@stellar/stellar-sdk';
import { SANDBOX_NETWORK_PASSPHRASE } from '@wallet/horizon-sandbox';
import { RpcClient } from '../../src/clients/rpc.client';
import { PATIENCE_MS } from '../helpers/patience';
import { startLedgerSandbox, type RunningLedger } from '../helpers/sandboxes';

/**
 * Through Stellar RPC a submission's outcome is asked for at the ledger's pace: once when core
 * queued it, then once just after the close that applied it (src/clients/ledger-close-watch.ts),
 * not on a timer of each submission's own. Against the sandbox with real ledger timing (a close
 * every 500 ms), a doubling timer from 50 ms asks four or five times per submission.
 */
let ledger: RunningLedger;
beforeAll(async () => {
  ledger = await startLedgerSandbox({ ledgerCloseMs: 500 });
});
afterAll(() => ledger.stop());

async function funded(): Promise<Keypair> {
  const pair = Keypair.random();
  const res = await fetch(`${ledger.url}/friendbot?addr=${pair.publicKey()}`);
  expect(res.ok).toBe(true);
  return pair;
}

async function payment(client: RpcClient, source: Keypair, destination: string) {
  const loaded = (await client.loadAccount(source.publicKey()))!;
  const tx = new TransactionBuilder(new Account(source.publicKey(), loaded.sequence), { fee: '100', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE })
    .addOperation(Operation.payment({ destination, asset: Asset.native(), amount: '1' }))
    .setTimeout(TimeoutInfinite)
    .build();
  tx.sign(source);
  return tx;
}

it('asks getTransaction at most twice per submission, and every one is applied', async () => {
  const client = new RpcClient({ rpcUrl: ledger.rpcUrl, networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, readTimeoutMs: PATIENCE_MS, submitTimeoutMs: PATIENCE_MS });
  const senders = await Promise.all(Array.from({ length: 10 }, funded));
  const receiver = (await funded()).publicKey();
  // Pass-through observer: counts the questions, answers as the sandbox does.
  const getTransaction = client.server.getTransaction.bind(client.server);
  let asked = 0;
  client.server.getTransaction = (hash: string) => {
    asked++;
    return getTransaction(hash);
  };

  let submitted = 0;
  for (let round = 0; round < 3; round++) {
    const txs = await Promise.all(senders.map((s) => payment(client, s, receiver)));
    const queuedAt = (await client.health()).latestLedger;
    const answers = await Promise.all(txs.map((tx) => client.submit(tx)));
    submitted += txs.length;
    for (const answer of answers) {
      expect(answer).toMatchObject({ kind: 'applied' });
      // Queued while `queuedAt` was the latest: applied in a later ledger. Not necessarily all in one:
      // a close may fall between the ten arrivals, and each is then asked again after the next.
      expect((answer as { ledger: number }).ledger).toBeGreaterThan(queuedAt);
    }
  }
  expect(asked).toBeLessThanOrEqual(2 * submitted);
});
