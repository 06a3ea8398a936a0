import { Account, Asset, Keypair, Operation, TransactionBuilder, rpc, type FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import { SANDBOX_NETWORK_PASSPHRASE } from '@wallet/horizon-sandbox';
import { fundWithFriendbot } from '../../src/clients/friendbot';
import { HorizonClient } from '../../src/clients/horizon.client';
import type { LedgerApi } from '../../src/clients/ledger-api';
import { LedgerRejectedError } from '../../src/clients/ledger-errors';
import { RpcClient } from '../../src/clients/rpc.client';
import { FeeBumper, bidNamedBy, bidPerOperation } from '../../src/ledger/fee-bumper';
import { FeePolicy } from '../../src/ledger/fee-policy';
import { LEDGER_APIS, startLedgerSandbox, type LedgerApiKind, type RunningLedger } from '../helpers/sandboxes';

// stellar-core lets a fee bump take the place of a transaction waiting in its queue only when it
// bids ten times as much per operation, and names that fee when it refuses one. The sandbox's queue
// does the same: FeeBumper's raise is taken, a doubled bid is refused, over both ledger APIs.

let ledger: RunningLedger | undefined;
afterEach(async () => {
  await ledger?.stop();
  ledger = undefined;
});

function clientFor(api: LedgerApiKind, running: RunningLedger): LedgerApi {
  // gives up on a waiting envelope after a second; admission() checks a give-up with core
  const common = { networkPassphrase: SANDBOX_NETWORK_PASSPHRASE, submitTimeoutMs: 1_000 };
  return api === 'rpc' ? new RpcClient({ rpcUrl: running.rpcUrl, ...common }) : new HorizonClient({ horizonUrl: running.url, retentionLedgers: 120_960, ...common });
}

/**
 * What the queue answers a submission: `waiting` when it took the envelope in, else its refusal as
 * the client reports it. The client gives up waiting after its submit timeout; a refusal comes at
 * once, but on a busy machine it may reach the client later than that. So a give-up is checked with
 * core itself, through RPC, which changes nothing: the envelope waiting is a DUPLICATE (PENDING if
 * the client's own submission never reached it: taken in now); refused, it is refused again, and
 * the client is asked again.
 */
async function admission(client: LedgerApi, core: rpc.Server, envelope: Transaction | FeeBumpTransaction): Promise<'waiting' | LedgerRejectedError> {
  for (;;) {
    const answer = await client.submit(envelope);
    if (answer.kind === 'refused') return answer.error;
    if (answer.kind !== 'unclear') throw new Error(`the envelope was meant to wait, it was answered ${answer.kind}`);
    const { status } = await core.sendTransaction(envelope);
    if (status === 'DUPLICATE' || status === 'PENDING') return 'waiting';
  }
}

describe.each(LEDGER_APIS)('replace-by-fee in the queue (%s)', (api) => {
  it("takes FeeBumper's raise in place of a waiting fee bump, and refuses a doubled bid, naming ten times the fee", async () => {
    // Ledgers of one operation: a payment in a fee bump (2 operations) never fits, so it waits.
    ledger = await startLedgerSandbox({ api, ledgerCloseMs: 200, idleCloseMs: 0, maxOperationsPerLedger: 1, pendingDepthLedgers: 500 });
    const client = clientFor(api, ledger);
    const core = new rpc.Server(ledger.rpcUrl, { allowHttp: true });
    const [feeSource, wallet] = [Keypair.random(), Keypair.random()];
    for (const key of [feeSource, wallet]) await fundWithFriendbot(`${ledger.url}/friendbot`, key.publicKey());
    const loaded = (await client.loadAccount(wallet.publicKey()))!;
    const inner = new TransactionBuilder(new Account(wallet.publicKey(), loaded.sequence), { fee: '0', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE })
      .addOperation(Operation.payment({ destination: feeSource.publicKey(), asset: Asset.native(), amount: '1' }))
      .setTimeout(300)
      .build();
    inner.sign(wallet);
    const bumper = new FeeBumper(feeSource, new FeePolicy(client, { percentile: 90, maxFeeStroops: 100_000n, cacheMs: 0 }), SANDBOX_NETWORK_PASSPHRASE);

    const { envelope: queued } = await bumper.wrap(inner);
    expect(bidPerOperation(queued)).toBe(100n);
    expect(await admission(client, core, queued)).toBe('waiting');

    // doubling, the old raise: refused, and the refusal names the fee that would have replaced it
    const doubled = TransactionBuilder.buildFeeBumpTransaction(feeSource, '200', inner, SANDBOX_NETWORK_PASSPHRASE);
    doubled.sign(feeSource);
    const refusal = await admission(client, core, doubled);
    expect(refusal).toBeInstanceOf(LedgerRejectedError);
    expect(refusal).toMatchObject({ transactionCode: 'tx_insufficient_fee', feeCharged: 2_000n });

    expect(bidNamedBy(refusal as LedgerRejectedError, doubled)).toBe(1_000n);

    // the raise, knowing no refusal: ten times the queued bid per operation, taken in its place
    const raised = (await bumper.raise(queued))!;
    expect(bidPerOperation(raised)).toBe(1_000n);
    expect(await admission(client, core, raised)).toBe('waiting');
    // the first fee bump no longer waits: sent again, it is the one refused now
    expect(await admission(client, core, queued)).toMatchObject({ transactionCode: 'tx_insufficient_fee' });
  });
});
