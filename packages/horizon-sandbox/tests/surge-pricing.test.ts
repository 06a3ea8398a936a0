import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  Asset,
  Keypair,
  Operation,
  TransactionBuilder,
  xdr,
  type FeeBumpTransaction,
  type Horizon,
  type Transaction,
} from '@stellar/stellar-sdk';
import { TIMEOUT_PROBLEM, getJson } from './fault-helpers';
import { balancesOf, buildFrom, fundedAccount, startSandbox, type SandboxHarness } from './sandbox-harness';
import { accountWaitsInQueue, handedIn, manualLedgerCloses } from './test-clocks';

// Surge pricing as stellar-core does it for classic transactions: a ledger takes at most
// maxOperationsPerLedger operations, the highest bids per operation first, and when it cannot take
// everything it charges every transaction in it the lowest of those bids per operation; the rest wait
// in core's queue for up to pendingDepthLedgers ledgers, after which Horizon answers 504.

interface Answer {
  status: number;
  body: {
    type?: string;
    hash?: string;
    ledger?: number;
    fee_charged?: string;
    max_fee?: string;
    extras?: { result_xdr: string; result_codes: { transaction: string } };
  };
}

/** POST /transactions with the raw answer, whatever its status. */
async function post(harness: SandboxHarness, tx: Transaction | FeeBumpTransaction): Promise<Answer> {
  const response = await fetch(`${harness.url}/transactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ tx: tx.toXDR() }),
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const hashOf = (tx: Transaction | FeeBumpTransaction) => tx.hash().toString('hex');
const feeChargedIn = (answer: Answer) =>
  xdr.TransactionResult.fromXDR(answer.body.extras?.result_xdr ?? '', 'base64').feeCharged().toString();

/** `count` payments of 1 XLM each to `payee`, bidding `fee` stroops per operation. */
function payments(account: Horizon.AccountResponse, signer: Keypair, payee: string, passphrase: string, fee: number, count = 1) {
  const operations = Array.from({ length: count }, () => Operation.payment({ destination: payee, asset: Asset.native(), amount: '1' }));
  return buildFrom(account, operations, passphrase, { fee: String(fee) }, [signer]);
}

/** `count` funded accounts, the ledgers closed (`closing`) as their fundings need. */
async function fundAll(harness: SandboxHarness, closing: <T>(pending: Promise<T>) => Promise<T>, count: number): Promise<Keypair[]> {
  return closing(Promise.all(Array.from({ length: count }, () => fundedAccount(harness))));
}

async function coreLatestLedger(harness: SandboxHarness): Promise<number> {
  return (await getJson<{ core_latest_ledger: number }>(harness, '/')).body.core_latest_ledger;
}

// The ledger timer ticks when the test says (manualLedgerCloses): every burst reaches the queue
// before the close it is meant for, however slowly a busy machine sends it (with a real timer, a
// CI-like load once split a 14-transaction burst across two ledgers).
describe('a ledger of at most 10 operations', () => {
  let harness: SandboxHarness;
  let payee: Keypair;
  let clock: Keypair;
  let clockAccount: Horizon.AccountResponse;
  const { closeLedger, closing } = manualLedgerCloses(1000);

  beforeAll(async () => {
    harness = await startSandbox({ ledgerCloseMs: 1000, maxOperationsPerLedger: 10, idleCloseMs: 0 });
    [payee, clock] = (await fundAll(harness, closing, 2)) as [Keypair, Keypair];
    clockAccount = await harness.horizon.loadAccount(clock.publicKey());
  });

  afterAll(() => harness.close());

  /** A payment alone in its ledger. */
  const tick = async () => closing(harness.horizon.submitTransaction(payments(clockAccount, clock, payee.publicKey(), harness.passphrase, 100)));

  it('takes the highest bids, charges each the lowest of them, and lets the rest in once the load has passed', async () => {
    const bids = [300, 1200, 500, 100, 900, 700, 1300, 200, 1000, 600, 1100, 400, 800, 1400];
    const bidders = await fundAll(harness, closing, bids.length);
    const accounts = await Promise.all(bidders.map((bidder) => harness.horizon.loadAccount(bidder.publicKey())));
    const burst = bids.map((bid, index) =>
      payments(accounts[index] as Horizon.AccountResponse, bidders[index] as Keypair, payee.publicKey(), harness.passphrase, bid),
    );
    // three lone payments, so that the fee_stats window (5 ledgers) holds them and the burst, nothing else
    let lastTick;
    for (let ledger = 0; ledger < 3; ledger++) lastTick = await tick();

    const sent = burst.map((tx) => post(harness, tx));
    for (const tx of burst) await accountWaitsInQueue(harness, tx);
    const answers = await closing(Promise.all(sent));

    expect(answers.map((answer) => answer.status)).toEqual(bids.map(() => 200));
    const full = (lastTick?.ledger ?? 0) + 1;
    const placed = answers.map((answer, index) => ({
      bid: bids[index],
      ledger: answer.body.ledger,
      feeCharged: answer.body.fee_charged,
      maxFee: answer.body.max_fee,
    }));
    const byBid = (a: { bid?: number }, b: { bid?: number }) => (a.bid ?? 0) - (b.bid ?? 0);
    // the ten highest bids fill the ledger and all pay the lowest of them, 500; the four others wait
    // for the next one, which is not full, and pay the base fee
    expect(placed.sort(byBid)).toEqual([
      ...[100, 200, 300, 400].map((bid) => ({ bid, ledger: full + 1, feeCharged: '100', maxFee: String(bid) })),
      ...[500, 600, 700, 800, 900, 1000, 1100, 1200, 1300, 1400].map((bid) => ({
        bid,
        ledger: full,
        feeCharged: '500',
        maxFee: String(bid),
      })),
    ]);
    const record = await harness.horizon.transactions().transaction(hashOf(burst[1] as Transaction)).call();
    expect(record).toMatchObject({ ledger_attr: full, fee_charged: '500', max_fee: '1200' });

    const ledger = await getJson(harness, `/ledgers/${full}`);
    expect(ledger.body).toMatchObject({
      successful_transaction_count: 10,
      operation_count: 10,
      tx_set_operation_count: 10,
      // the header's base fee stays the network minimum during a surge, as on Horizon
      base_fee_in_stroops: 100,
      max_tx_set_size: 10,
    });

    // the last 5 ledgers: three lone payments (100 bid, 100 charged), the four that waited, the ten that filled one
    const stats = await harness.horizon.feeStats();
    expect(stats).toEqual({
      last_ledger: String(full + 1),
      last_ledger_base_fee: '100',
      ledger_capacity_usage: '0.34',
      fee_charged: {
        max: '500', min: '100', mode: '500',
        p10: '100', p20: '100', p30: '100', p40: '100', p50: '500', p60: '500',
        p70: '500', p80: '500', p90: '500', p95: '500', p99: '500',
      },
      max_fee: {
        max: '1400', min: '100', mode: '100',
        p10: '100', p20: '100', p30: '300', p40: '400', p50: '600', p60: '800',
        p70: '900', p80: '1100', p90: '1300', p95: '1400', p99: '1400',
      },
    });
  });

  it('drops a transaction that waited more than pendingDepthLedgers ledgers, with a 504; a fee bump of it then lands once', async () => {
    const [stuck, sponsor, ...loaders] = (await fundAll(harness, closing, 6)) as [Keypair, Keypair, ...Keypair[]];
    const stuckAccount = await harness.horizon.loadAccount(stuck.publicKey());
    const stuckBefore = await balancesOf(harness, stuck.publicKey());
    const lowBid = payments(stuckAccount, stuck, payee.publicKey(), harness.passphrase, 100);
    // four transactions of 10 operations at 200 each: one fills each of the next four ledgers
    const loads = await Promise.all(
      loaders.map(async (loader) =>
        payments(await harness.horizon.loadAccount(loader.publicKey()), loader, payee.publicKey(), harness.passphrase, 200, 10),
      ),
    );
    const [first, second, third, fourth] = loads as [Transaction, Transaction, Transaction, Transaction];
    await tick();

    const stuckAnswer = post(harness, lowBid);
    await accountWaitsInQueue(harness, lowBid);
    // 31 operations wait: within the queue's 4 ledgers x 10, so nothing is pushed out
    const sentTogether = [first, second, third].map((tx) => post(harness, tx));
    for (const tx of [first, second, third]) await accountWaitsInQueue(harness, tx);
    // the fourth arrives once the first ledger has closed, when the queue has room for it
    closeLedger();
    const sentLast = post(harness, fourth);
    await accountWaitsInQueue(harness, fourth);
    const loadAnswers = await closing(Promise.all([...sentTogether, sentLast]));

    // one per ledger, in four ledgers running: which of the three sent together arrived first is
    // up to the network (equal bids go by arrival), so the order is not asserted
    const ledgers = loadAnswers.map((answer) => answer.body.ledger ?? 0).sort((a, b) => a - b);
    expect(ledgers).toEqual([ledgers[0], (ledgers[0] ?? 0) + 1, (ledgers[0] ?? 0) + 2, (ledgers[0] ?? 0) + 3]);
    expect(loadAnswers.map((answer) => answer.body.fee_charged)).toEqual(['2000', '2000', '2000', '2000']);
    const dropped = await closing(stuckAnswer);
    expect(dropped.status).toBe(504);
    expect(dropped.body).toEqual(TIMEOUT_PROBLEM);
    expect((await fetch(`${harness.url}/transactions/${hashOf(lowBid)}`)).status).toBe(404);
    expect((await harness.horizon.loadAccount(stuck.publicKey())).sequence).toBe((BigInt(lowBid.sequence) - 1n).toString());
    expect(await balancesOf(harness, stuck.publicKey())).toEqual(stuckBefore);

    // what a wallet does with a stuck transaction: bump its fee, the inner envelope unchanged
    const payeeBefore = await balancesOf(harness, payee.publicKey());
    const bump = TransactionBuilder.buildFeeBumpTransaction(sponsor, '1000', lowBid, harness.passphrase);
    bump.sign(sponsor);
    const landed = await closing(post(harness, bump));
    expect(landed).toMatchObject({ status: 200, body: { hash: hashOf(bump), fee_charged: '200', max_fee: '2000' } });
    // submitted again, bumped or bare, it is answered from the ledger and not applied twice
    expect(await closing(post(harness, bump))).toMatchObject({ status: 200, body: { hash: hashOf(bump), ledger: landed.body.ledger } });
    expect(await closing(post(harness, lowBid))).toMatchObject({ status: 200, body: { ledger: landed.body.ledger } });
    const byInner = await harness.horizon.transactions().transaction(hashOf(lowBid)).call();
    expect(byInner).toMatchObject({ hash: hashOf(lowBid), fee_bump_transaction: { hash: hashOf(bump) }, successful: true });
    expect((await harness.horizon.loadAccount(stuck.publicKey())).sequence).toBe(lowBid.sequence);
    expect(await balancesOf(harness, stuck.publicKey())).toEqual({ native: '9999.0000000' });
    expect(await balancesOf(harness, payee.publicKey())).toEqual({ native: addLumens(payeeBefore.native, 1) });
  });
});

describe("core's queue: 2 ledgers of 5 operations", () => {
  let harness: SandboxHarness;
  let payee: Keypair;
  let clock: Keypair;
  let clockAccount: Horizon.AccountResponse;
  // ledgers close when the test says (see above)
  const { closing } = manualLedgerCloses(1000);

  beforeAll(async () => {
    harness = await startSandbox({ ledgerCloseMs: 1000, maxOperationsPerLedger: 5, pendingDepthLedgers: 2, idleCloseMs: 0 });
    [payee, clock] = (await fundAll(harness, closing, 2)) as [Keypair, Keypair];
    clockAccount = await harness.horizon.loadAccount(clock.publicKey());
  });

  afterAll(() => harness.close());

  const tick = async () => closing(harness.horizon.submitTransaction(payments(clockAccount, clock, payee.publicKey(), harness.passphrase, 100)));
  const load = async (keypair: Keypair) => harness.horizon.loadAccount(keypair.publicKey());

  it('refuses a bid under 100 stroops per operation at once', async () => {
    const [payer] = (await fundAll(harness, closing, 1)) as [Keypair];
    await tick();
    const before = await coreLatestLedger(harness);

    const refused = await post(harness, payments(await load(payer), payer, payee.publicKey(), harness.passphrase, 75, 2));

    expect(refused.status).toBe(400);
    expect(refused.body.extras?.result_codes).toEqual({ transaction: 'tx_insufficient_fee' });
    expect(feeChargedIn(refused)).toBe('200');
    expect(await coreLatestLedger(harness)).toBe(before);
  });

  it('when full, refuses a bid no higher than the lowest waiting and lets a higher one push the lowest out', async () => {
    const [fillerA, fillerB, low, high] = (await fundAll(harness, closing, 4)) as [Keypair, Keypair, Keypair, Keypair];
    const fillA = payments(await load(fillerA), fillerA, payee.publicKey(), harness.passphrase, 200, 5);
    const fillB = payments(await load(fillerB), fillerB, payee.publicKey(), harness.passphrase, 200, 5);
    const lowBid = payments(await load(low), low, payee.publicKey(), harness.passphrase, 200);
    const highBid = payments(await load(high), high, payee.publicKey(), harness.passphrase, 300);
    await tick();
    const before = await coreLatestLedger(harness);

    // 10 operations: the queue holds 2 ledgers of 5
    const filledA = post(harness, fillA);
    await accountWaitsInQueue(harness, fillA);
    const filledB = post(harness, fillB);
    await accountWaitsInQueue(harness, fillB);
    const refused = await post(harness, lowBid);
    const pushing = post(harness, highBid);
    const pushedOut = await filledB;

    // both answered with no ledger closed
    expect(await coreLatestLedger(harness)).toBe(before);
    expect(refused.status).toBe(400);
    expect(refused.body.extras?.result_codes).toEqual({ transaction: 'tx_insufficient_fee' });
    // core reports the fee that would have outbid the cheapest waiting transaction: 1000 / 5 + 1
    expect(feeChargedIn(refused)).toBe('201');
    // among equal bids the latest to arrive goes first
    expect(pushedOut).toEqual({ status: 504, body: TIMEOUT_PROBLEM });

    const [pushed, stayed] = await closing(Promise.all([pushing, filledA]));
    // the next ledger could not take both: the higher bid went in and set the price; fillA waited one ledger
    expect(pushed.body).toMatchObject({ ledger: before + 1, fee_charged: '300' });
    expect(stayed.body).toMatchObject({ ledger: before + 2, fee_charged: '500' });
    expect((await fetch(`${harness.url}/transactions/${hashOf(fillB)}`)).status).toBe(404);
    expect((await load(fillerB)).sequence).toBe((BigInt(fillB.sequence) - 1n).toString());
    expect((await fetch(`${harness.url}/transactions/${hashOf(lowBid)}`)).status).toBe(404);
  });

  it('answers the same transaction submitted twice while it waits with one result, applied once', async () => {
    const [payer] = (await fundAll(harness, closing, 1)) as [Keypair];
    const tx = payments(await load(payer), payer, payee.publicKey(), harness.passphrase, 100);
    await tick();
    const payeeBefore = await balancesOf(harness, payee.publicKey());
    const requestsBefore = harness.requestsIn();

    const twice = [post(harness, tx), post(harness, tx)];
    // both submissions handed to core before its ledger closes
    await handedIn(harness, requestsBefore + 2);
    const [first, second] = await closing(Promise.all(twice));

    expect(first).toMatchObject({ status: 200, body: { hash: hashOf(tx) } });
    expect(second).toEqual(first);
    expect(await balancesOf(harness, payee.publicKey())).toEqual({ native: addLumens(payeeBefore.native, 1) });
  });

  it('replaces a waiting transaction with a fee bump bidding 10x or more, and refuses one bidding less', async () => {
    const [payer, sponsor] = (await fundAll(harness, closing, 2)) as [Keypair, Keypair];
    const inner = payments(await load(payer), payer, payee.publicKey(), harness.passphrase, 100);
    const bump = (ratePerOperation: string) => {
      const built = TransactionBuilder.buildFeeBumpTransaction(sponsor, ratePerOperation, inner, harness.passphrase);
      built.sign(sponsor);
      return built;
    };
    const ninefold = bump('900');
    const tenfold = bump('1000');
    await tick();
    const payeeBefore = await balancesOf(harness, payee.publicKey());

    const replaced = post(harness, inner);
    await accountWaitsInQueue(harness, inner);
    const refused = await post(harness, ninefold);
    const replacing = post(harness, tenfold);

    expect(refused.status).toBe(400);
    expect(refused.body.extras?.result_codes).toEqual({ transaction: 'tx_insufficient_fee' });
    // 10 x 100 per operation, for the inner operation plus one
    expect(feeChargedIn(refused)).toBe('2000');
    expect(await replaced).toEqual({ status: 504, body: TIMEOUT_PROBLEM });
    const landed = await closing(replacing);
    expect(landed).toMatchObject({ status: 200, body: { hash: hashOf(tenfold), fee_charged: '200', max_fee: '2000' } });

    const byInner = await harness.horizon.transactions().transaction(hashOf(inner)).call();
    expect(byInner).toMatchObject({
      hash: hashOf(inner),
      ledger_attr: landed.body.ledger,
      fee_bump_transaction: { hash: hashOf(tenfold) },
      inner_transaction: { hash: hashOf(inner) },
    });
    expect((await fetch(`${harness.url}/transactions/${hashOf(ninefold)}`)).status).toBe(404);
    expect((await load(payer)).sequence).toBe(inner.sequence);
    expect(await balancesOf(harness, payee.publicKey())).toEqual({ native: addLumens(payeeBefore.native, 1) });
  });
});

describe('ledgers kept on disk', () => {
  let dataDir: string;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'sandbox-surge-'));
  });

  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('keep the operation limit they closed under, and ledgers saved before it was recorded read as 1000', async () => {
    const fund = async (harness: SandboxHarness) =>
      (await getJson<{ ledger: number }>(harness, `/friendbot?addr=${Keypair.random().publicKey()}`)).body.ledger;
    const first = await startSandbox({ dataDir, maxOperationsPerLedger: 50 });
    const earlier = await fund(first);
    await first.close();

    const second = await startSandbox({ dataDir, maxOperationsPerLedger: 20 });
    let later: number;
    try {
      expect((await getJson(second, `/ledgers/${earlier}`)).body).toMatchObject({ max_tx_set_size: 50, base_fee_in_stroops: 100 });
      later = await fund(second);
      expect((await getJson(second, `/ledgers/${later}`)).body).toMatchObject({ max_tx_set_size: 20 });
    } finally {
      await second.close();
    }

    // files written before the header carried a base fee and a limit
    const stateFile = path.join(dataDir, 'ledger-state.json');
    const historyFile = path.join(dataDir, 'ledger-history.ndjson');
    const withoutFees = (header: Record<string, unknown>) => {
      delete header.baseFee;
      delete header.maxTxSetSize;
    };
    const state = JSON.parse(await readFile(stateFile, 'utf8')) as { latest: Record<string, unknown> };
    withoutFees(state.latest);
    await writeFile(stateFile, JSON.stringify(state));
    const lines = (await readFile(historyFile, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as { header: Record<string, unknown> });
    for (const line of lines) withoutFees(line.header);
    await writeFile(historyFile, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);

    const third = await startSandbox({ dataDir });
    try {
      expect((await getJson(third, `/ledgers/${later}`)).body).toMatchObject({ max_tx_set_size: 1000, base_fee_in_stroops: 100 });
      const stats = await third.horizon.feeStats();
      expect(stats).toMatchObject({ last_ledger: String(later), last_ledger_base_fee: '100', ledger_capacity_usage: '0.00' });
      await expect(fundedAccount(third)).resolves.toBeInstanceOf(Keypair);
    } finally {
      await third.close();
    }
  });
});

/** A 7-decimal lumen amount plus whole lumens, exactly. */
function addLumens(amount: string | undefined, lumens: number): string {
  const stroops = BigInt((amount ?? '0').replace('.', '')) + BigInt(lumens) * 10_000_000n;
  const text = stroops.toString().padStart(8, '0');
  return `${text.slice(0, -7)}.${text.slice(-7)}`;
}
