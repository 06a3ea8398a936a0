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
  const getTransaction = client.server._getTransaction.bind(client.server);
  let asked = 0;
  client.server._getTransaction = (hash: string) => {
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

it('starts an envelope from the tip an account read just reported, once the pace is known: no getHealth of its own', async () => {
  const client = new RpcClient({ rpcUrl: ledger.rpcUrl, networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, readTimeoutMs: PATIENCE_MS, submitTimeoutMs: PATIENCE_MS });
  const [sender, receiver] = [await funded(), (await funded()).publicKey()];
  // Payments one after another: the client's close watch learns the pace from the closes it waits for.
  let appliedIn = 0;
  for (let i = 0; i < 4; i++) {
    const answer = await client.submit(await payment(client, sender, receiver));
    expect(answer).toMatchObject({ kind: 'applied' });
    appliedIn = (answer as { ledger: number }).ledger;
  }
  const getHealth = client.server.getHealth.bind(client.server);
  let healthReads = 0;
  client.server.getHealth = () => {
    healthReads++;
    return getHealth();
  };
  // An account read then the tip, as a transfer builds its envelope: the tip comes from the read's
  // answer. A machine stalled for a quarter of a close between the two makes the client read it
  // itself (correct, only slower), so a few tries are allowed.
  let served = false;
  for (let attempt = 0; attempt < 5 && !served; attempt++) {
    const before = healthReads;
    const [account] = await client.loadAccounts([sender.publicKey()]);
    expect(account?.id).toBe(sender.publicKey());
    const tip = await client.latestLedger();
    expect(tip.sequence).toBeGreaterThanOrEqual(appliedIn);
    served = healthReads === before;
  }
  expect(served).toBe(true);

  // A transfer's two accounts, each with its trustline, cost one getLedgerEntries, not one each.
  const getLedgerEntries = client.server.getLedgerEntries.bind(client.server);
  let entryReads = 0;
  client.server.getLedgerEntries = (...keys) => {
    entryReads++;
    return getLedgerEntries(...keys);
  };
  const both = await client.loadAccounts([sender.publicKey(), receiver], Asset.native());
  expect(both.map((a) => a?.id)).toEqual([sender.publicKey(), receiver]);
  expect(entryReads).toBe(1);
});

it('once the pace is known, asks about a PENDING envelope only after a close: never at the ledger it was queued at', async () => {
  const client = new RpcClient({ rpcUrl: ledger.rpcUrl, networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, readTimeoutMs: PATIENCE_MS, submitTimeoutMs: PATIENCE_MS });
  const [sender, receiver] = [await funded(), (await funded()).publicKey()];
  // Payments one after another until the client's close watch knows the pace.
  for (let i = 0; i < 4; i++) expect(await client.submit(await payment(client, sender, receiver))).toMatchObject({ kind: 'applied' });

  // Pass-through observers: the ledger each envelope was queued at, and the ledger of each answer about it.
  const queuedAt = new Map<string, number>();
  const askedAt: { hash: string; latestLedger: number; status: string }[] = [];
  const sendTransaction = client.server.sendTransaction.bind(client.server);
  client.server.sendTransaction = async (tx) => {
    const sent = await sendTransaction(tx);
    queuedAt.set(sent.hash, sent.latestLedger);
    return sent;
  };
  const getTransaction = client.server._getTransaction.bind(client.server);
  client.server._getTransaction = async (hash: string) => {
    const answer = await getTransaction(hash);
    askedAt.push({ hash, latestLedger: answer.latestLedger, status: answer.status });
    return answer;
  };

  const senders = await Promise.all(Array.from({ length: 5 }, funded));
  const txs = await Promise.all(senders.map((s) => payment(client, s, receiver)));
  const answers = await Promise.all(txs.map((tx) => client.submit(tx)));
  for (const answer of answers) expect(answer).toMatchObject({ kind: 'applied' });

  expect(queuedAt.size).toBe(txs.length);
  expect(new Set(askedAt.map((a) => a.hash))).toEqual(new Set(queuedAt.keys()));
  // Each question came after a ledger closed past the one its envelope was queued at.
  for (const asked of askedAt) expect(asked.latestLedger).toBeGreaterThan(queuedAt.get(asked.hash)!);
});
