import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { StellarClient } from '../../src/clients/stellar.client';
import { FeeBumper, bidPerOperation } from '../../src/ledger/fee-bumper';
import { FeePolicy } from '../../src/ledger/fee-policy';
import { SANDBOX_NETWORK_PASSPHRASE } from '@wallet/horizon-sandbox';
import { startLedgerSandbox, type RunningLedger } from '../helpers/sandboxes';

// The bid comes from the network's /fee_stats (read over HTTP from the sandbox, as from Horizon),
// at least the base fee, at most MAX_FEE_STROOPS; a raise at least doubles; a fee bump of a
// waiting envelope keeps its inner transaction.

let ledger: RunningLedger;
let client: StellarClient;

beforeAll(async () => {
  ledger = await startLedgerSandbox();
  client = new StellarClient({ horizonUrl: ledger.url, networkPassphrase: SANDBOX_NETWORK_PASSPHRASE });
});
afterAll(() => ledger.stop());

const policy = (maxFeeStroops: bigint) => new FeePolicy(client, { percentile: 90, maxFeeStroops, cacheMs: 0 });

describe('FeePolicy', () => {
  it('bids the base fee on a quiet network, with the ledger it read', async () => {
    const bid = await policy(10_000n).bid();
    expect(bid.perOperation).toBe(100n);
    expect(bid.ledger).toBeGreaterThan(0);
  });

  it('raises a waiting bid at least twofold, up to the cap, and then no more', async () => {
    const capped = policy(1_000n);
    expect((await capped.raise(100n))?.perOperation).toBe(200n);
    expect((await capped.raise(400n))?.perOperation).toBe(800n);
    expect((await capped.raise(800n))?.perOperation).toBe(1_000n);
    expect(await capped.raise(1_000n)).toBeUndefined();
  });

  it('bids at least a floor (a full queue refused a lower bid), still within the cap', async () => {
    expect((await policy(10_000n).bid(2_000n)).perOperation).toBe(2_000n);
    expect((await policy(1_500n).bid(2_000n)).perOperation).toBe(1_500n);
  });

  it('bids the base fee when Horizon cannot be read', async () => {
    const unreachable = new StellarClient({ horizonUrl: 'http://127.0.0.1:9', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, readTimeoutMs: 500 });
    const bid = await new FeePolicy(unreachable, { percentile: 90, maxFeeStroops: 10_000n, cacheMs: 0 }).bid();
    expect(bid).toEqual({ perOperation: 100n, ledger: undefined });
  });

  it('follows what a surging network charged, and never bids past the cap', async () => {
    // A ledger holding 2 operations, and four payments bidding 300..600 at once: the two highest
    // get in and each pays 500, the lowest bid that made it.
    const surging = await startLedgerSandbox({ ledgerCloseMs: 300, idleCloseMs: 0, maxOperationsPerLedger: 2 });
    try {
      const client = new StellarClient({ horizonUrl: surging.url, networkPassphrase: SANDBOX_NETWORK_PASSPHRASE });
      const payers = Array.from({ length: 4 }, () => Keypair.random());
      for (const payer of payers) await fetch(`${surging.url}/friendbot?addr=${payer.publicKey()}`);
      await Promise.allSettled(
        payers.map(async (payer, i) => {
          const loaded = await client.loadAccount(payer.publicKey());
          const tx = new TransactionBuilder(new Account(payer.publicKey(), loaded!.sequence), { fee: String(300 + 100 * i), networkPassphrase: SANDBOX_NETWORK_PASSPHRASE })
            .addOperation(Operation.payment({ destination: payer.publicKey(), asset: Asset.native(), amount: '1' }))
            .setTimeout(60)
            .build();
          tx.sign(payer);
          return client.submit(tx);
        }),
      );
      const at = (percentile: number, maxFeeStroops = 10_000n) => new FeePolicy(client, { percentile, maxFeeStroops, cacheMs: 0 }).bid();
      expect((await at(99)).perOperation).toBe(500n);
      expect((await at(99, 400n)).perOperation).toBe(400n);
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
    expect(bidPerOperation(raised)).toBe(200n);
    expect(raised.innerTransaction.hash().equals(inner.hash())).toBe(true);
    expect(raised.hash().equals(first.hash())).toBe(false);
    expect(raised.innerTransaction.sequence).toBe('8');
  });
});
