import { Account, Asset, Keypair, Operation, TransactionBuilder, rpc } from '@stellar/stellar-sdk';
import { HorizonClient } from '../../src/clients/horizon.client';
import { LedgerRejectedError } from '../../src/clients/ledger-errors';
import { FeeBumper, bidNamedBy, bidPerOperation } from '../../src/ledger/fee-bumper';
import { FeePolicy } from '../../src/ledger/fee-policy';
import { SANDBOX_NETWORK_PASSPHRASE } from '@wallet/horizon-sandbox';
import { startLedgerSandbox, type RunningLedger } from '../helpers/sandboxes';
// The ledger sandbox's own test kit: a ledger timer the test ticks, and a probe of its queue.
import { accountWaitsInQueue, manualLedgerCloses } from '../../packages/horizon-sandbox/tests/test-clocks';

// The bid comes from the network's /fee_stats (read over HTTP from the sandbox, as from Horizon),
// at least the base fee, at most MAX_FEE_STROOPS. A raise bids what stellar-core's queue takes in
// place of the waiting envelope (ten times its bid per operation, at least the fee a refusal
// named) or nothing; a fee bump of a waiting envelope keeps its inner transaction.

let ledger: RunningLedger;
let client: HorizonClient;

const horizonClient = (horizonUrl: string, readTimeoutMs?: number) =>
  new HorizonClient({ horizonUrl, networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, readTimeoutMs, retentionLedgers: 120_960 });

beforeAll(async () => {
  ledger = await startLedgerSandbox();
  client = horizonClient(ledger.url);
});
afterAll(() => ledger.stop());

const policy = (maxFeeStroops: bigint) => new FeePolicy(client, { percentile: 90, maxFeeStroops, cacheMs: 0 });

describe('FeePolicy', () => {
  it('bids the base fee on a quiet network, with the ledger it read', async () => {
    const bid = await policy(10_000n).bid();
    expect(bid.perOperation).toBe(100n);
    expect(bid.ledger).toBeGreaterThan(0);
  });

  it('raises a waiting bid to ten times it, the least that replaces it in the queue', async () => {
    expect((await policy(100_000n).raise(100n))?.perOperation).toBe(1_000n);
    expect((await policy(100_000n).raise(1_234n))?.perOperation).toBe(12_340n);
  });

  it('raises to the fee a refusal named when that is more than ten times the queued bid', async () => {
    expect((await policy(100_000n).raise(100n, 2_501n))?.perOperation).toBe(2_501n);
    expect((await policy(100_000n).raise(100n, 999n))?.perOperation).toBe(1_000n);
  });

  it('does not raise when the cap is below ten times the queued bid or below the named fee: the envelope waits to be dropped', async () => {
    expect((await policy(1_000n).raise(100n))?.perOperation).toBe(1_000n);
    expect(await policy(999n).raise(100n)).toBeUndefined();
    expect(await policy(1_000n).raise(800n)).toBeUndefined();
    expect(await policy(5_000n).raise(100n, 5_001n)).toBeUndefined();
  });

  it('bids at least a floor (a full queue refused a lower bid), still within the cap', async () => {
    expect((await policy(10_000n).bid(2_000n)).perOperation).toBe(2_000n);
    expect((await policy(1_500n).bid(2_000n)).perOperation).toBe(1_500n);
  });

  it('bids the base fee when Horizon cannot be read', async () => {
    const unreachable = horizonClient('http://127.0.0.1:9', 500);
    const bid = await new FeePolicy(unreachable, { percentile: 90, maxFeeStroops: 10_000n, cacheMs: 0 }).bid();
    expect(bid).toEqual({ perOperation: 100n, ledger: undefined });
  });
});

describe('FeePolicy on a surging network', () => {
  // The ledger timer ticks when the test says: the four payments all wait in the queue before the
  // close that takes the two highest, however slowly a busy machine sends them.
  const { closeLedger, closing } = manualLedgerCloses(300);

  it('follows what a surging network charged, and never bids past the cap', async () => {
    // A ledger holding 2 operations, and four payments bidding 300..600 at once: the two highest
    // get in and each pays 500, the lowest bid that made it.
    const surging = await startLedgerSandbox({ ledgerCloseMs: 300, idleCloseMs: 0, maxOperationsPerLedger: 2 });
    try {
      const client = horizonClient(surging.url);
      const queue = { rpc: new rpc.Server(surging.rpcUrl, { allowHttp: true }), passphrase: SANDBOX_NETWORK_PASSPHRASE };
      const payers = Array.from({ length: 4 }, () => Keypair.random());
      for (const payer of payers) await closing(fetch(`${surging.url}/friendbot?addr=${payer.publicKey()}`));
      const payments = await Promise.all(
        payers.map(async (payer, i) => {
          const loaded = await client.loadAccount(payer.publicKey());
          const tx = new TransactionBuilder(new Account(payer.publicKey(), loaded!.sequence), { fee: String(300 + 100 * i), networkPassphrase: SANDBOX_NETWORK_PASSPHRASE })
            .addOperation(Operation.payment({ destination: payer.publicKey(), asset: Asset.native(), amount: '1' }))
            .setTimeout(60)
            .build();
          tx.sign(payer);
          return tx;
        }),
      );
      const submitted = Promise.all(payments.map((tx) => client.submit(tx)));
      for (const tx of payments) await accountWaitsInQueue(queue, tx);
      closeLedger();
      // the two highest bids in the first ledger, the other two in the next
      expect((await closing(submitted)).map((answer) => answer.kind)).toEqual(['applied', 'applied', 'applied', 'applied']);
      const at = (percentile: number, maxFeeStroops = 10_000n) => new FeePolicy(client, { percentile, maxFeeStroops, cacheMs: 0 }).bid();
      expect((await at(99)).perOperation).toBe(500n);
      expect((await at(99, 400n)).perOperation).toBe(400n);
      // a raise is ten times the queued bid even when the network charges less: less is refused
      expect((await new FeePolicy(client, { percentile: 99, maxFeeStroops: 10_000n, cacheMs: 0 }).raise(100n))?.perOperation).toBe(1_000n);
    } finally {
      await surging.stop();
    }
  });
});

describe('FeeBumper', () => {
  it('wraps and re-wraps the same signed inner transaction, paid by the fee source', async () => {
    const feeSource = Keypair.random();
    const wallet = Keypair.random();
    const inner = new TransactionBuilder(new Account(wallet.publicKey(), '7'), { fee: '0', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE })
      .addOperation(Operation.payment({ destination: feeSource.publicKey(), asset: Asset.native(), amount: '1' }))
      .setTimeout(60)
      .build();
    inner.sign(wallet);
    const bumper = new FeeBumper(feeSource, policy(10_000n), SANDBOX_NETWORK_PASSPHRASE);

    const { envelope: first } = await bumper.wrap(inner);
    expect(first.feeSource).toBe(feeSource.publicKey());
    expect(bidPerOperation(first)).toBe(100n);
    expect(first.fee).toBe('200'); // the fee bump counts as one more operation

    const raised = (await bumper.raise(first))!;
    expect(bidPerOperation(raised)).toBe(1_000n);
    expect(raised.fee).toBe('2000');
    expect(raised.innerTransaction.hash().equals(inner.hash())).toBe(true);
    expect(raised.hash().equals(first.hash())).toBe(false);
    expect(raised.innerTransaction.sequence).toBe('8');
  });

  it('raises to the fee a refusal named, spread over the fee bump and inner operations and rounded up', async () => {
    const feeSource = Keypair.random();
    const wallet = Keypair.random();
    const inner = new TransactionBuilder(new Account(wallet.publicKey(), '7'), { fee: '0', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE })
      .addOperation(Operation.payment({ destination: feeSource.publicKey(), asset: Asset.native(), amount: '1' }))
      .addOperation(Operation.payment({ destination: feeSource.publicKey(), asset: Asset.native(), amount: '1' }))
      .setTimeout(60)
      .build();
    inner.sign(wallet);
    const bumper = new FeeBumper(feeSource, policy(100_000n), SANDBOX_NETWORK_PASSPHRASE);
    const { envelope: queued } = await bumper.wrap(inner);
    expect(queued.fee).toBe('300'); // 2 operations and the fee bump, at 100

    // core names the least fee for the refused envelope's 3 operations: 4,000 is 1,333.33 per operation
    const refusal = new LedgerRejectedError('tx_insufficient_fee', [], true, 4_000n);
    expect(bidNamedBy(refusal, queued)).toBe(1_334n);
    expect(bidNamedBy(new LedgerRejectedError('tx_bad_seq', [], false, 300n), queued)).toBeUndefined();
    const raised = (await bumper.raise(queued, bidNamedBy(refusal, queued)))!;
    expect(bidPerOperation(raised)).toBe(1_334n);
    expect(BigInt(raised.fee)).toBeGreaterThanOrEqual(4_000n);

    // a cap below ten times the queued bid: no raise
    expect(await new FeeBumper(feeSource, policy(999n), SANDBOX_NETWORK_PASSPHRASE).raise(queued)).toBeUndefined();
  });
});
