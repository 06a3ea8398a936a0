import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { StellarClient } from '../../src/clients/stellar.client';
import { FeeBumper, bidPerOperation } from '../../src/ledger/fee-bumper';
import { FeePolicy } from '../../src/ledger/fee-policy';
import { SANDBOX_NETWORK_PASSPHRASE } from '../../src/sandbox/horizon';
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
  it('bids the base fee on a quiet network', async () => {
    expect(await policy(10_000n).bid()).toBe(100n);
  });

  it('raises a waiting bid at least twofold, up to the cap, and then no more', async () => {
    const capped = policy(1_000n);
    expect(await capped.raise(100n)).toBe(200n);
    expect(await capped.raise(400n)).toBe(800n);
    expect(await capped.raise(800n)).toBe(1_000n);
    expect(await capped.raise(1_000n)).toBeUndefined();
  });

  it('never bids above the cap, even when the network charges more', async () => {
    expect(await new FeePolicy(client, { percentile: 90, maxFeeStroops: 100n, cacheMs: 0 }).bid()).toBe(100n);
  });

  it('bids the base fee when Horizon cannot be read', async () => {
    const unreachable = new StellarClient({ horizonUrl: 'http://127.0.0.1:9', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, readTimeoutMs: 500 });
    expect(await new FeePolicy(unreachable, { percentile: 90, maxFeeStroops: 10_000n, cacheMs: 0 }).bid()).toBe(100n);
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

    const first = await bumper.wrap(inner);
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
