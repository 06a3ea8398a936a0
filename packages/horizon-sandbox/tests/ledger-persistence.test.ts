import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Asset, Keypair, Operation } from '@stellar/stellar-sdk';
import { createHorizonSandbox } from '../src';
import { until } from './fault-helpers';
import { balancesOf, buildTransaction, fundedAccount, startSandbox } from './sandbox-harness';

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'sandbox-ledger-'));
});

afterEach(() => rm(dataDir, { recursive: true, force: true }));

describe('a sandbox with a data directory', () => {
  it('keeps accounts, trustlines, signers, sequence numbers and history across a restart', async () => {
    const first = await startSandbox({ dataDir });
    const [issuer, holder] = await Promise.all([fundedAccount(first), fundedAccount(first)]);
    const asset = new Asset('WLT', issuer.publicKey());
    const cosigner = Keypair.random();
    await first.horizon.submitTransaction(
      await buildTransaction(first, holder, [
        Operation.changeTrust({ asset, limit: '1000' }),
        Operation.setOptions({ signer: { ed25519PublicKey: cosigner.publicKey(), weight: 1 } }),
      ]),
    );
    const mint = await first.horizon.submitTransaction(
      await buildTransaction(first, issuer, [Operation.payment({ destination: holder.publicKey(), asset, amount: '42.1234567' })]),
    );
    const before = await first.horizon.loadAccount(holder.publicKey());
    const paymentsBefore = await first.horizon.payments().forAccount(holder.publicKey()).call();
    const operationsBefore = await first.horizon.operations().forAccount(holder.publicKey()).call();
    const transactionsBefore = await first.rpc.getTransactions({ startLedger: 1 });
    await first.close();

    const second = await startSandbox({ dataDir });
    try {
      const after = await second.horizon.loadAccount(holder.publicKey());
      expect(after.sequence).toBe(before.sequence);
      expect(after.balances).toEqual(before.balances);
      expect(after.signers).toEqual(before.signers);
      expect(after.subentry_count).toBe(2);
      expect((await balancesOf(second, holder.publicKey()))[`WLT:${issuer.publicKey()}`]).toBe('42.1234567');
      const record = await second.horizon.transactions().transaction(mint.hash).call();
      expect(record.ledger_attr).toBe(mint.ledger);
      const paymentsAfter = await second.horizon.payments().forAccount(holder.publicKey()).call();
      expect(paymentsAfter.records.map((payment) => payment.id)).toEqual(paymentsBefore.records.map((payment) => payment.id));
      // operations and RPC's transactions are read from the same stored history
      const operationsAfter = await second.horizon.operations().forAccount(holder.publicKey()).call();
      const summary = (records: typeof operationsAfter.records) => records.map(({ id, type, transaction_hash }) => ({ id, type, transaction_hash }));
      expect(summary(operationsAfter.records)).toEqual(summary(operationsBefore.records));
      expect(summary(operationsAfter.records).map((record) => record.type)).toEqual(['create_account', 'change_trust', 'set_options', 'payment']);
      const transactionsAfter = await second.rpc.getTransactions({ startLedger: 1 });
      expect(transactionsAfter.transactions.map((tx) => tx.txHash)).toEqual(transactionsBefore.transactions.map((tx) => tx.txHash));

      // the ledger carries on where it stopped
      const next = await second.horizon.submitTransaction(
        await buildTransaction(second, holder, [Operation.payment({ destination: issuer.publicKey(), asset, amount: '2' })]),
      );
      expect(next.ledger).toBe(mint.ledger + 1);
      // friendbot's root account kept its sequence too, or this funding would be tx_bad_seq
      await fundedAccount(second);
    } finally {
      await second.close();
    }
  });

  it('saves after a ledger closes, without waiting for close()', async () => {
    const harness = await startSandbox({ dataDir });
    try {
      const keypair = await fundedAccount(harness);
      // the sandbox still open: the save after the close is its own
      const snapshot = await until(async () => {
        const saved = await readFile(path.join(dataDir, 'ledger-state.json'), 'utf8').catch(() => '');
        return saved.includes(keypair.publicKey()) ? saved : undefined;
      }, 'the snapshot to hold the funded account');
      expect(snapshot).toContain(keypair.publicKey());
    } finally {
      await harness.close();
    }
  });

  it('ignores journal lines that the last snapshot never saw, such as one cut short by a crash', async () => {
    const first = await startSandbox({ dataDir });
    const keypair = await fundedAccount(first);
    await first.close();
    await appendFile(path.join(dataDir, 'ledger-history.ndjson'), '{"header":{"sequence":99');

    const second = await startSandbox({ dataDir });
    try {
      expect((await second.horizon.loadAccount(keypair.publicKey())).balances[0]?.balance).toBe('10000.0000000');
      await expect(fundedAccount(second)).resolves.toBeInstanceOf(Keypair);
    } finally {
      await second.close();
    }
  });

  it('refuses a data directory that holds another network\'s ledger', async () => {
    const sandbox = await createHorizonSandbox({ dataDir });
    await sandbox.close();
    await expect(createHorizonSandbox({ dataDir, networkPassphrase: 'Another Network ; 2026' })).rejects.toThrow(
      /holds a ledger for/,
    );
  });
});
