import { Account, Asset, Horizon, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { bearer, createUser, type CreatedUser } from '../helpers/factories';
import { fundedUser, ledgerBalance } from '../helpers/ledger-fixtures';
import { eventually } from '../helpers/eventually';
import { paidIntent, paymentBecomes, supplyTokens } from '../helpers/payment-fixtures';
import { withSandboxes } from '../helpers/with-sandboxes';

// Issue 14: when more operations compete for a ledger than it holds, Stellar includes the highest
// bids and lets the rest wait. Here a competing load keeps every ledger full at 1,000 stroops per
// operation, ten times the service's opening bid. The service's envelopes wait, are fee-bumped
// around the same inner transaction (same hash, same sequence number), land, and each write
// happens exactly once: balances, records and the audit say so.

jest.setTimeout(120_000);

const LEDGER_OPS = 12;
const COMPETING_BID = 1000;

const { ledger, app } = withSandboxes({
  ledger: { ledgerCloseMs: 300, idleCloseMs: 0, maxOperationsPerLedger: LEDGER_OPS },
  app: {
    env: {
      LEDGER_CHANNELS: '2',
      LEDGER_BUMP_AFTER_LEDGERS: '2',
      LEDGER_SETTLE_BASE_MS: '100',
      LEDGER_RECHECK_MS: '300',
      RECONCILE_INTERVAL_MS: '300',
      MAX_FEE_STROOPS: '100000',
    },
  },
});
let horizon: Horizon.Server;

beforeAll(() => {
  horizon = new Horizon.Server(ledger.url, { allowHttp: true });
});

/**
 * Other users of the network: accounts that keep one two-operation payment each in flight at
 * COMPETING_BID per operation, enough to fill every ledger, until stopped.
 */
async function competingLoad(accounts: number): Promise<{ stop(): Promise<number> }> {
  const keys = Array.from({ length: accounts }, () => Keypair.random());
  await Promise.all(keys.map((k) => fetch(`${ledger.url}/friendbot?addr=${k.publicKey()}`)));
  let running = true;
  let included = 0;
  const loops = keys.map(async (key) => {
    let account = new Account(key.publicKey(), (await horizon.loadAccount(key.publicKey())).sequence);
    while (running) {
      const tx = new TransactionBuilder(account, { fee: String(COMPETING_BID), networkPassphrase: app.container.journal.client.networkPassphrase })
        .addOperation(Operation.payment({ destination: key.publicKey(), asset: Asset.native(), amount: '0.0000001' }))
        .addOperation(Operation.payment({ destination: key.publicKey(), asset: Asset.native(), amount: '0.0000001' }))
        .setTimeout(60)
        .build();
      tx.sign(key);
      try {
        await horizon.submitTransaction(tx);
        included++;
      } catch {
        // dropped after waiting (504): its sequence number may be unused; start again from the ledger's
        account = new Account(key.publicKey(), (await horizon.loadAccount(key.publicKey())).sequence);
      }
    }
  });
  // let the load fill a few ledgers before the service competes
  await eventually(async () => (included >= LEDGER_OPS ? true : undefined), 'the competing load filling ledgers');
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return included;
    },
  };
}

async function feeStats() {
  return (await (await fetch(`${ledger.url}/fee_stats`)).json()) as { last_ledger_base_fee: string; ledger_capacity_usage: string };
}

/** A transfer retried with its key until it is final, as a phone would. */
async function transferUntilFinal(from: CreatedUser, to: string, amount: number, key: string): Promise<number> {
  const final = await eventually(
    async () => {
      const res = await app.http.post('/api/ledger/transfer').set(bearer(from.token)).set('Idempotency-Key', key).send({ receiverPublicKey: to, amount });
      return res.status === 202 || res.status === 503 ? undefined : res;
    },
    `transfer ${key} to be final`,
    100_000,
    500,
  );
  return final.status;
}

describe('surge pricing', () => {
  it('transfers and payments still land, fee-bumped, each exactly once', async () => {
    await supplyTokens(app);
    const alice = await fundedUser(app, 100);
    const bob = await createUser(app);
    const buyers = await Promise.all([createUser(app), createUser(app)]);
    const intents = await Promise.all(buyers.map((b) => paidIntent(app, b, 30)));

    const load = await competingLoad(8);
    // The network is surging: every ledger full, charged the competing bid.
    await eventually(async () => {
      const stats = await feeStats();
      return stats.last_ledger_base_fee === String(COMPETING_BID) && stats.ledger_capacity_usage === '1.00' ? true : undefined;
    }, 'a full ledger charging the competing bid');

    const transfers = ['surge-1', 'surge-2', 'surge-3'].map((key, i) => transferUntilFinal(alice, bob.ledgerPublicKey, 10 + i, key));
    const verifies = intents.map((intent, i) =>
      app.http.post('/api/payments/verify-payment').set(bearer(buyers[i]!.token)).send({ reference: intent.reference }),
    );
    const [statuses] = await Promise.all([Promise.all(transfers), Promise.all(verifies)]);
    expect(statuses).toEqual([200, 200, 200]);
    for (const intent of intents) await paymentBecomes(app, intent.reference, 'minted', 60_000);
    const included = await load.stop();
    expect(included).toBeGreaterThan(LEDGER_OPS);

    // Bumped: waiting envelopes got a higher bid, the inner transaction unchanged.
    const envelopes = await app.container.journal.repository.allEnvelopes();
    const bumped = envelopes.filter((e) => e.bumps > 0);
    expect(bumped.length).toBeGreaterThan(0);
    for (const envelope of bumped) {
      expect(envelope.status).toBe('confirmed');
      const record = await horizon.transactions().transaction(envelope.hash).call();
      expect(record.inner_transaction?.hash).toBe(envelope.hash);
      expect(BigInt(record.fee_charged)).toBeGreaterThanOrEqual(BigInt(COMPETING_BID));
    }
    expect((await app.http.get('/metrics')).text).toMatch(/^ledger_fee_bumps_total [1-9]\d*$/m);

    // Exactly once: 10 + 11 + 12 moved, each payment minted once.
    expect(await ledgerBalance(ledger.url, alice.ledgerPublicKey)).toBe('67.0000000');
    expect(await ledgerBalance(ledger.url, bob.ledgerPublicKey)).toBe('33.0000000');
    for (const buyer of buyers) expect(await ledgerBalance(ledger.url, buyer.ledgerPublicKey)).toBe('30.0000000');
    const audit = await app.container.audit();
    expect(audit.discrepancies).toEqual([]);
  });
});
