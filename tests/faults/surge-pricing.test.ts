import { Account, Asset, Horizon, Keypair, Operation, TransactionBuilder, rpc, type Transaction } from '@stellar/stellar-sdk';
import { bearer, createUser, type CreatedUser } from '../helpers/factories';
import { fundedUser, ledgerBalance } from '../helpers/ledger-fixtures';
import { eventually } from '../helpers/eventually';
import { paidIntent, paymentBecomes, supplyTokens } from '../helpers/payment-fixtures';
import { startLedgerSandbox, startPaystackSandbox, type RunningLedger, type RunningProvider } from '../helpers/sandboxes';
import { startTestApp, type TestApp } from '../helpers/test-app';
// The ledger sandbox's own test kit: a ledger timer the test ticks, and a probe of its queue.
import { accountWaits, manualLedgerCloses } from '../../packages/horizon-sandbox/tests/test-clocks';

// Issue 14: when more operations compete for a ledger than it holds, Stellar includes the highest
// bids and lets the rest wait. Here a competing load keeps every ledger full at 1,000 stroops per
// operation, ten times the service's opening bid. The service's envelopes wait, are fee-bumped
// around the same inner transaction (same hash, same sequence number), land, and each write
// happens exactly once: balances, records and the audit say so. Each raise bids ten times the
// waiting bid, the least stellar-core's queue (and the sandbox's) takes in its place: a smaller
// one would be refused.

const LEDGER_OPS = 12;
const COMPETING_BID = 1000;
const CLOSE_MS = 300;

let ledger: RunningLedger;
let provider: RunningProvider;
let app: TestApp;
let horizon: Horizon.Server;

let sharedLedger: RunningLedger;

/**
 * The sandboxes' ledger timer is the test's (manualLedgerCloses), ticked by the conductor below:
 * every 300 ms, as a sandbox would on its own, except while a surge is on. With a real timer the
 * surge was only as full as a busy machine let the competing load keep it: its payments came back
 * too slowly to fill each ledger, and the service's envelopes got in without a bump.
 */
const { closeLedger } = manualLedgerCloses(CLOSE_MS);
let conductor: Conductor;

beforeAll(async () => {
  ledger = sharedLedger = await startLedgerSandbox({ ledgerCloseMs: 300, idleCloseMs: 0, maxOperationsPerLedger: LEDGER_OPS });
  provider = await startPaystackSandbox();
  horizon = new Horizon.Server(ledger.url, { allowHttp: true });
});
afterAll(async () => {
  await sharedLedger.stop();
  await provider.stop();
});
beforeEach(() => {
  conductor = startConductor();
});

interface Conductor {
  /** Closes a ledger only when `full` says the queue holds a full ledger of competing bids. */
  surge(full: () => Promise<boolean>): void;
  /** Closes none until told otherwise. */
  hold(): void;
  /** Back to a ledger every 300 ms. */
  calm(): void;
  stop(): Promise<void>;
}

function startConductor(): Conductor {
  let mode = 'calm' as 'calm' | 'hold' | (() => Promise<boolean>);
  let running = true;
  const ticking = (async () => {
    while (running) {
      await new Promise((resolve) => setTimeout(resolve, CLOSE_MS));
      if (mode === 'hold' || (mode !== 'calm' && !(await mode()))) continue;
      closeLedger();
    }
  })();
  return {
    surge: (full) => (mode = full),
    hold: () => (mode = 'hold'),
    calm: () => (mode = 'calm'),
    async stop() {
      running = false;
      await ticking;
    },
  };
}

const SERVICE_ENV = {
  LEDGER_CHANNELS: '2',
  LEDGER_BUMP_AFTER_LEDGERS: '2',
  LEDGER_SETTLE_BASE_MS: '100',
  LEDGER_RECHECK_MS: '300',
  RECONCILE_INTERVAL_MS: '300',
  MAX_FEE_STROOPS: '100000',
  // Ledgers close every 300 ms here, not every 5 s: a submission waits two of them, so the raise
  // meets its envelope still in the queue (dropped after 4): the queue must take it as a replacement
  // (10x), and the envelope's 24 ledgers leave time for it to land.
  LEDGER_SUBMIT_TIMEOUT_MS: '600',
};

let load: CompetingLoad | undefined;
/** A test's own ledger, when it needs other limits; stopped after the test. */
let ownLedger: RunningLedger | undefined;
afterEach(async () => {
  // a failed test must not leave the competing load hammering a stopped sandbox
  conductor.calm();
  await load?.stop();
  load = undefined;
  await conductor.stop();
  await app.close();
  if (ownLedger) {
    await ownLedger.stop();
    ownLedger = undefined;
    ledger = sharedLedger;
    horizon = new Horizon.Server(ledger.url, { allowHttp: true });
  }
});

interface CompetingLoad {
  /** How many of its payments wait in the queue now (each of its accounts has at most one there). */
  waiting(): Promise<number>;
  stop(): Promise<number>;
}

/**
 * Other users of the network: accounts that keep one two-operation payment each in flight at
 * COMPETING_BID per operation, enough to fill every ledger, until stopped.
 */
async function competingLoad(accounts: number): Promise<CompetingLoad> {
  const pause = () => new Promise((resolve) => setTimeout(resolve, 100));
  const keys = Array.from({ length: accounts }, () => Keypair.random());
  // friendbot bids the base fee and its fundings compete for room too: a few per ledger
  for (let i = 0; i < keys.length; i += 6) await Promise.all(keys.slice(i, i + 6).map((k) => fetch(`${ledger.url}/friendbot?addr=${k.publicKey()}`)));
  const queue = { rpc: new rpc.Server(ledger.rpcUrl, { allowHttp: true }), passphrase: app.container.ledgerModule.client.networkPassphrase };
  const latest: (Transaction | undefined)[] = keys.map(() => undefined);
  let running = true;
  let included = 0;
  const loops = keys.map(async (key, index) => {
    let account = new Account(key.publicKey(), (await horizon.loadAccount(key.publicKey())).sequence);
    while (running) {
      const tx = new TransactionBuilder(account, { fee: String(COMPETING_BID), networkPassphrase: app.container.ledgerModule.client.networkPassphrase })
        .addOperation(Operation.payment({ destination: key.publicKey(), asset: Asset.native(), amount: '0.0000001' }))
        .addOperation(Operation.payment({ destination: key.publicKey(), asset: Asset.native(), amount: '0.0000001' }))
        .setTimeout(60)
        .build();
      tx.sign(key);
      latest[index] = tx;
      try {
        await horizon.submitTransaction(tx);
        included++;
      } catch {
        // dropped after waiting (504), or refused by a full queue: start again from the ledger's sequence
        await pause();
        account = await horizon.loadAccount(key.publicKey()).then((a) => new Account(key.publicKey(), a.sequence), () => account);
      }
    }
  });
  // let the load fill a few ledgers before the service competes
  await eventually(async () => (included >= LEDGER_OPS ? true : undefined), 'the competing load filling ledgers');
  return {
    async waiting() {
      const sent = latest.filter((tx): tx is Transaction => tx !== undefined);
      return (await Promise.all(sent.map((tx) => accountWaits(queue, tx)))).filter(Boolean).length;
    },
    async stop() {
      running = false;
      await Promise.all(loops);
      return included;
    },
  };
}

async function feeStats() {
  return (await (await fetch(`${ledger.url}/fee_stats`)).json()) as { fee_charged: { p50: string }; ledger_capacity_usage: string };
}

/**
 * True when the ledger's queue is full: a one-operation payment bidding `perOperation` from
 * `probe` (funded before the surge: friendbot bids the base fee) is refused on arrival.
 */
async function queueRefuses(probe: Keypair, perOperation: number): Promise<true | undefined> {
  const loaded = await horizon.loadAccount(probe.publicKey());
  const tx = new TransactionBuilder(new Account(probe.publicKey(), loaded.sequence), { fee: String(perOperation), networkPassphrase: app.container.ledgerModule.client.networkPassphrase })
    .addOperation(Operation.payment({ destination: probe.publicKey(), asset: Asset.native(), amount: '0.0000001' }))
    .setTimeout(60)
    .build();
  tx.sign(probe);
  const res = await fetch(`${ledger.url}/transactions`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ tx: tx.toXDR() }) });
  const body = (await res.json()) as { extras?: { result_codes?: { transaction?: string } } };
  return res.status === 400 && body.extras?.result_codes?.transaction === 'tx_insufficient_fee' ? true : undefined;
}

/** A transfer retried with its key until it is final, as a phone would. */
async function transferUntilFinal(from: CreatedUser, to: string, amount: number, key: string): Promise<number> {
  for (;;) {
    const res = await app.http.post('/api/ledger/transfer').set(bearer(from.token)).set('Idempotency-Key', key).send({ receiverPublicKey: to, amount });
    if (res.status !== 202 && res.status !== 503) return res.status;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Envelopes the journal judged dead after they outlived their ledger bounds: none is on the ledger. */
async function expectDeadAndAbsent(envelopes: { hash: string; status: string; failure: string | null }[]): Promise<void> {
  for (const envelope of envelopes) {
    expect([envelope.status, envelope.failure]).toEqual(['failed', expect.stringMatching(/^never_applies/)]);
    expect((await fetch(`${ledger.url}/transactions/${envelope.hash}`)).status).toBe(404);
  }
}

/** Every balance and record as exactly-once says, and the audit clean. */
async function expectExactlyOnce(balances: [CreatedUser, string][]): Promise<void> {
  for (const [user, balance] of balances) expect(await ledgerBalance(ledger.url, user.ledgerPublicKey)).toBe(balance);
  const audit = await app.container.audit();
  expect(audit.discrepancies).toEqual([]);
}

describe('surge pricing', () => {
  it('envelopes left waiting by a surge are fee-bumped around the same inner transaction, and land once', async () => {
    // The surge starts after the service last read /fee_stats (a reading kept for 10 minutes
    // here): its envelopes bid 100 stroops against a network clearing at 1,000, wait, and must be
    // bumped until they get in.
    app = await startTestApp({ ...ledger.env, ...provider.env, ...SERVICE_ENV, LEDGER_FEE_STATS_CACHE_MS: '600000' }, 'info');
    await supplyTokens(app);
    const alice = await fundedUser(app, 100);
    const bob = await createUser(app);
    const buyers = await Promise.all([createUser(app), createUser(app)]);
    const intents = await Promise.all(buyers.map((b) => paidIntent(app, b, 30)));

    // 8 accounts x 2 operations at 1,000 stroops: more than a 12-operation ledger holds. From here a
    // ledger closes only when 6 of them (12 operations) wait: every ledger is full of the competing
    // bid, however slowly a busy machine sends them.
    const competing = (load = await competingLoad(8));
    conductor.surge(async () => (await competing.waiting()) >= LEDGER_OPS / 2);
    await eventually(async () => {
      const stats = await feeStats();
      return stats.fee_charged.p50 === String(COMPETING_BID) && stats.ledger_capacity_usage === '1.00' ? true : undefined;
    }, 'full ledgers charging the competing bid');

    const transfers = ['surge-1', 'surge-2', 'surge-3'].map((key, i) => transferUntilFinal(alice, bob.ledgerPublicKey, 10 + i, key));
    const verifies = intents.map((intent, i) => app.http.post('/api/payments/verify-payment').set(bearer(buyers[i]!.token)).send({ reference: intent.reference }));
    const [statuses] = await Promise.all([Promise.all(transfers), Promise.all(verifies)]);
    expect(statuses).toEqual([200, 200, 200]);
    for (const intent of intents) await paymentBecomes(app, intent.reference, 'minted');
    conductor.calm();
    await load.stop();
    load = undefined;

    // Bumped: the journal kept each envelope's inner hash; the fee bump that applied is the last
    // one it stored, each raise bidding ten times the one before (from the stale 100), and was
    // charged no more than its bid.
    const envelopes = await app.container.ledgerModule.repository.allEnvelopes();
    const bumped = envelopes.filter((e) => e.bumps > 0);
    const landed = bumped.filter((e) => e.status === 'confirmed');
    expect(landed.length).toBeGreaterThanOrEqual(2); // the transfers' and the mints' envelopes
    // On a busy machine one may outlive its ledger bounds in the queue: rightly judged dead, it is
    // nowhere on the ledger, and its movement was made by a new envelope (the balances below say once).
    await expectDeadAndAbsent(bumped.filter((e) => e.status !== 'confirmed'));
    for (const envelope of landed) {
      const record = await horizon.transactions().transaction(envelope.hash).call();
      expect(record.inner_transaction?.hash).toBe(envelope.hash);
      expect(record.fee_bump_transaction?.hash).toBe(envelope.outerHash);
      const operations = BigInt(record.operation_count) + 1n;
      expect(BigInt(record.max_fee)).toBe(envelope.bidStroops);
      expect(BigInt(record.max_fee) / operations).toBe(100n * 10n ** BigInt(envelope.bumps));
      expect(BigInt(record.fee_charged)).toBeLessThanOrEqual(BigInt(record.max_fee));
      expect(envelope.feeCharged).toBe(BigInt(record.fee_charged));
    }
    expect((await app.http.get('/metrics')).text).toMatch(/^ledger_fee_bumps_total [1-9]\d*$/m);
    // every raise was taken by the queue: none refused for its fee (and none swallowed unseen)
    const refusals = app.logs
      .flatMap((chunk) => chunk.split('\n').filter(Boolean))
      .map((line) => JSON.parse(line) as { msg: string; code?: string })
      .filter((l) => l.msg.startsWith('resubmission refused'));
    expect(refusals.filter((l) => l.code === 'tx_insufficient_fee')).toEqual([]);

    // Exactly once: 10 + 11 + 12 moved, each payment minted once.
    await expectExactlyOnce([
      [alice, '67.0000000'],
      [bob, '33.0000000'],
      [buyers[0]!, '30.0000000'],
      [buyers[1]!, '30.0000000'],
    ]);
  });

  it('a bid refused at once by a full queue (tx_insufficient_fee) is made again higher, and lands once', async () => {
    // A queue holding one ledger's worth (12 operations), and 30 accounts x 2 operations at 1,000
    // wanting in: full at every moment, so a bid that does not beat 1,000 is refused on arrival.
    ledger = ownLedger = await startLedgerSandbox({ ledgerCloseMs: 300, idleCloseMs: 0, maxOperationsPerLedger: LEDGER_OPS, pendingDepthLedgers: 1 });
    horizon = new Horizon.Server(ledger.url, { allowHttp: true });
    // The submit deadline at its longest: the full queue's refusal is the answer to a first
    // submission however late a busy machine delivers it (after 600 ms it was an unknown outcome,
    // settled and bumped instead, and never counted as a refusal).
    app = await startTestApp({ ...ledger.env, ...provider.env, ...SERVICE_ENV, LEDGER_SUBMIT_TIMEOUT_MS: '300000' });
    const alice = await fundedUser(app, 100);
    const bob = await createUser(app);
    const probe = Keypair.random();
    await fetch(`${ledger.url}/friendbot?addr=${probe.publicKey()}`);
    load = await competingLoad(30);

    // Right after a ledger closes the queue has room for a moment, and a transfer arriving then is
    // simply accepted. So no ledger closes from here until the transfer has met the full queue: it
    // arrives when the queue refuses the competing bid, whatever a busy machine's timing.
    conductor.hold();
    await eventually(() => queueRefuses(probe, COMPETING_BID), 'a queue refusing the competing bid');
    const transferEnvelopes = async () =>
      (await app.container.ledgerModule.repository.allEnvelopes()).filter((e) => e.sourceAccount === alice.ledgerPublicKey);
    const refusedOnArrival = (e: { status: string; failure: string | null }) => e.status === 'failed' && /tx_insufficient_fee/.test(e.failure ?? '');
    const sent = 1;
    const transfer = transferUntilFinal(alice, bob.ledgerPublicKey, 5, 'full-queue');
    await eventually(async () => ((await transferEnvelopes()).some(refusedOnArrival) ? true : undefined), 'the transfer refused by the full queue');
    conductor.calm();
    expect(await transfer).toBe(200);
    await load.stop();
    load = undefined;

    const envelopes = await transferEnvelopes();
    const refused = envelopes.filter(refusedOnArrival);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    // one that outlived its ledger bounds in the queue (a busy machine) was rightly judged dead
    await expectDeadAndAbsent(envelopes.filter((e) => e.status === 'failed' && !refusedOnArrival(e)));
    // refused on arrival: never sent again, never on the ledger
    for (const envelope of refused) {
      expect(envelope.failure).toMatch(/tx_insufficient_fee/);
      expect(envelope.submitCount).toBe(1);
      expect((await fetch(`${ledger.url}/transactions/${envelope.hash}`)).status).toBe(404);
    }
    const landed = envelopes.filter((e) => e.status === 'confirmed');
    expect(landed).toHaveLength(sent);
    // the envelope made again after the refusal outbid the queue: a payment and its fee bump, 2 operations
    expect(landed.some((e) => e.bidStroops! / 2n > BigInt(COMPETING_BID))).toBe(true);
    await expectExactlyOnce([
      [alice, `${100 - 5 * sent}.0000000`],
      [bob, `${5 * sent}.0000000`],
    ]);
  });
});
