import { rpc } from '@stellar/stellar-sdk';
import { creation, errorCode, feeBump, hashOf, rootAccount } from './rpc-helpers';
import { until } from './fault-helpers';
import { startSandbox, type SandboxHarness } from './sandbox-harness';

const { GetTransactionStatus } = rpc.Api;

/**
 * With ledgers closing on a timer, sendTransaction answers with core's admission and does not wait
 * for the ledger. The timer here is a minute long, so no ledger closes during a test: what is
 * queued stays queued. The root account pays, since funding anyone else would need a ledger.
 */
describe('sendTransaction with ledgers closing on a timer', () => {
  let harness: SandboxHarness;
  beforeEach(async () => {
    harness = await startSandbox({ ledgerCloseMs: 60_000 });
  });
  afterEach(() => harness.close());

  it('answers PENDING before the ledger closes; the transaction is not found until it does', async () => {
    const { keypair, account } = await rootAccount(harness);
    const tx = creation(harness, keypair, account);
    const sent = await harness.rpc.sendTransaction(tx);
    expect(sent).toMatchObject({ status: 'PENDING', latestLedger: 1 });
    expect((await harness.rpc.getTransaction(hashOf(tx))).status).toBe(GetTransactionStatus.NOT_FOUND);
    expect((await harness.rpc.getLatestLedger()).sequence).toBe(1);
  });

  it('answers DUPLICATE for the same envelope while it waits in the queue', async () => {
    const { keypair, account } = await rootAccount(harness);
    const tx = creation(harness, keypair, account);
    await harness.rpc.sendTransaction(tx);
    expect((await harness.rpc.sendTransaction(tx)).status).toBe('DUPLICATE');
  });

  it("answers TRY_AGAIN_LATER for the account's next transaction while one waits (one per account in the queue)", async () => {
    const { keypair, account } = await rootAccount(harness);
    const first = creation(harness, keypair, account);
    const second = creation(harness, keypair, account);
    expect((await harness.rpc.sendTransaction(first)).status).toBe('PENDING');
    expect((await harness.rpc.sendTransaction(second)).status).toBe('TRY_AGAIN_LATER');
  });

  it('lets a fee bump replace a waiting transaction only at 10 times its bid (tx_insufficient_fee below)', async () => {
    const { keypair, account } = await rootAccount(harness);
    const waiting = creation(harness, keypair, account);
    await harness.rpc.sendTransaction(waiting);

    const cheap = await harness.rpc.sendTransaction(feeBump(harness, keypair, waiting, '900'));
    expect(cheap.status).toBe('ERROR');
    expect(errorCode(cheap)).toBe('txInsufficientFee');
    expect(cheap.errorResult?.feeCharged().toString()).toBe('2000');

    const enough = feeBump(harness, keypair, waiting, '1000');
    expect((await harness.rpc.sendTransaction(enough)).status).toBe('PENDING');
  });

  it('applies a PENDING transaction when its ledger closes, in a later ledger than the one it was sent at', async () => {
    const quick = await startSandbox({ ledgerCloseMs: 100 });
    try {
      const { keypair, account } = await rootAccount(quick);
      const tx = creation(quick, keypair, account);
      const sent = await quick.rpc.sendTransaction(tx);
      expect(sent.status).toBe('PENDING');
      const found = await until(async () => {
        const answer = await quick.rpc.getTransaction(hashOf(tx));
        return answer.status === GetTransactionStatus.NOT_FOUND ? undefined : answer;
      }, 'the transaction in a ledger');
      expect(found.status).toBe(GetTransactionStatus.SUCCESS);
      if (found.status === GetTransactionStatus.SUCCESS) expect(found.ledger).toBeGreaterThan(sent.latestLedger);
    } finally {
      await quick.close();
    }
  });
});
