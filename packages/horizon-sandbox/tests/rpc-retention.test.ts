import { rpc } from '@stellar/stellar-sdk';
import { preparedPayment } from './fault-helpers';
import { fundedAccount, startSandbox, type SandboxHarness } from './sandbox-harness';

const { GetTransactionStatus } = rpc.Api;

describe('the RPC retention window', () => {
  let harness: SandboxHarness;
  beforeAll(async () => {
    harness = await startSandbox({ retentionLedgers: 3 });
  });
  afterAll(() => harness.close());

  it('answers NOT_FOUND for a transaction whose ledger left the window; getHealth reports the window', async () => {
    const payment = await preparedPayment(harness);
    await harness.rpc.sendTransaction(payment.tx);
    const found = await harness.rpc.getTransaction(payment.hash);
    expect(found.status).toBe(GetTransactionStatus.SUCCESS);
    if (found.status !== GetTransactionStatus.SUCCESS) return;

    // three more ledgers push the payment's ledger out of a three-ledger window
    for (let i = 0; i < 3; i++) await fundedAccount(harness);
    const gone = await harness.rpc.getTransaction(payment.hash);
    expect(gone.status).toBe(GetTransactionStatus.NOT_FOUND);
    expect(gone.oldestLedger).toBe(gone.latestLedger - 2);
    expect(gone.oldestLedger).toBeGreaterThan(found.ledger);
    expect(await harness.rpc.getHealth()).toMatchObject({ ledgerRetentionWindow: 3, oldestLedger: gone.oldestLedger });
    // the history itself stays: Horizon still has it
    expect((await harness.horizon.transactions().transaction(payment.hash).call()).ledger_attr).toBe(found.ledger);
  });
});
