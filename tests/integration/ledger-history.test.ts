import { sql } from 'drizzle-orm';
import type { HistoryPosition, HistoryRead, LedgerApi } from '../../src/clients/ledger-api';
import type { MovementRow } from '../../src/db/repositories/movement.repository';
import type { TransactionRecord } from '../../src/routes/transaction-record';
import { eventually } from '../helpers/eventually';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { fundedUser } from '../helpers/ledger-fixtures';
import { outsider, payTokens, walletKey } from '../helpers/outside-world';
import { LEDGER_APIS } from '../helpers/sandboxes';
import { startAppKeepingData, type TestApp } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * A wallet's history is its account's (CONTRACT.md section 12): the service follows the ledger and
 * records every movement into or out of its wallets that it did not make itself, once, whoever
 * made it and whenever the service reads it. Here outside accounts and wallet keys used in "another
 * wallet" submit straight to the sandbox ledger, and the service learns of it only by reading the
 * history, through RPC's getTransactions and through Horizon's /operations.
 */

/** A record as the list answers it: the route's own schema's type. */
type ListedRecord = TransactionRecord;

async function listOf(app: TestApp, user: CreatedUser): Promise<ListedRecord[]> {
  return (await app.http.get(`/api/ledger/transactions/${user.userId}`).set(bearer(user.token)).expect(200)).body as ListedRecord[];
}

/** The movements the follower recorded for a transaction (by the hash it applied under). */
async function recorded(app: TestApp, hash: string): Promise<MovementRow[]> {
  return (await app.container.ledgerModule.movements.all()).filter((m) => m.ledgerTransactionId === hash);
}

/** One pass of the follower (test apps run no background work of their own: each test drives it). */
async function follow(app: TestApp): Promise<void> {
  await app.container.ledgerModule.follower.run();
}

/** Has the follower read until it recorded `hash`, then twice more: what it recorded stays recorded once. */
async function followedOnce(app: TestApp, hash: string): Promise<MovementRow[]> {
  await eventually(async () => {
    await follow(app);
    return (await recorded(app, hash)).length > 0 ? true : undefined;
  }, `the follower to record ${hash}`);
  await app.container.ledgerModule.follower.run();
  await app.container.ledgerModule.follower.run();
  return recorded(app, hash);
}

async function auditDiscrepancies(app: TestApp): Promise<string[]> {
  return (await app.container.audit()).discrepancies;
}

/** Every history read through `client` from now on, with whether it was asked after the test's payment (a pass-through observer). */
function observeHistoryReads(client: LedgerApi) {
  const observed = { paid: false, answers: [] as { from: HistoryPosition; read: HistoryRead; askedAfterPayment: boolean }[] };
  const read = client.readHistory.bind(client);
  client.readHistory = async (from, limit) => {
    const askedAfterPayment = observed.paid;
    const answer = await read(from, limit);
    observed.answers.push({ from, read: answer, askedAfterPayment });
    return answer;
  };
  return observed;
}

/**
 * The follower's position never moved back, nor past what an answer held: a page that read
 * through the payment's ledger held the payment, or an earlier page did.
 */
function expectNoReadPast(answers: { from: HistoryPosition; read: HistoryRead }[], hash: string, paidIn: number): void {
  let seen = false;
  let last = answers[0]!.from;
  for (const { from, read: answer } of answers) {
    expect(from.ledger).toBeGreaterThanOrEqual(last.ledger);
    last = from;
    if (answer.kind !== 'page') continue;
    expect(answer.page.throughLedger).toBeLessThanOrEqual(Math.max(answer.page.latestLedger, from.ledger));
    seen ||= answer.page.transactions.some((t) => t.hash === hash);
    if (answer.page.throughLedger >= paidIn) expect(seen).toBe(true);
  }
}

describe.each(LEDGER_APIS)('the ledger followed through %s', (api) => {
  const { ledger, app, provider } = withSandboxes({ ledger: { api } });

  /** Alice holds tokens; an outside account holds `outsideTokens` of them, sent by Alice through the service. */
  async function setting(outsideTokens: number) {
    const alice = await fundedUser(app, 20);
    const bob = await createUser(app);
    const outside = await outsider(app, ledger.url);
    if (outsideTokens > 0) {
      await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: outside.publicKey(), amount: outsideTokens }).expect(200);
    }
    return { alice, bob, outside };
  }

  it('shows a transfer through the service to both ends, as the journal entry it is (never a second record)', async () => {
    const { alice, bob } = await setting(0);
    const sent = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 5 }).expect(200);
    const hash = sent.body.result.hash as string;
    // The follower reads past the transfer's ledger and records nothing of it: it is the service's own.
    const through = (await app.container.ledgerModule.client.health()).latestLedger;
    await eventually(async () => {
      await follow(app);
      return ((await app.container.ledgerModule.movements.position())?.ledger ?? 0) >= through ? true : undefined;
    }, 'the follower to read past the transfer');
    expect(await app.container.ledgerModule.movements.all()).toEqual([]);
    expect((await listOf(app, alice)).filter((r) => r.ledgerTransactionId === hash).map((r) => [r.direction, r.origin, r.assetAmount])).toEqual([['out', 'service', 5]]);
    expect((await listOf(app, bob)).map((r) => [r.ledgerTransactionId, r.direction, r.origin, r.assetAmount])).toEqual([[hash, 'in', 'service', 5]]);
    expect(await auditDiscrepancies(app)).toEqual([]);
  });

  it('records a payment from an outside account once, in the receiver\'s list, and the audit closes', async () => {
    const { bob, outside } = await setting(10);
    const hash = await payTokens(app, ledger.url, outside, bob.ledgerPublicKey, '4');
    const rows = await followedOnce(app, hash);
    expect(rows.map((m) => [m.operationType, m.fromPublicKey, m.toPublicKey, m.amountStroops, m.assetCode, m.toUserId, m.userId])).toEqual([
      ['payment', outside.publicKey(), bob.ledgerPublicKey, 40_000_000n, 'WLT', bob.userId, bob.userId],
    ]);
    expect((await listOf(app, bob)).map((r) => [r.ledgerTransactionId, r.direction, r.origin, r.assetAmount, r.status, r.from])).toEqual([
      [hash, 'in', 'ledger', 4, 'confirmed', outside.publicKey()],
    ]);
    // The admin list shows it once.
    const admin = await adminToken(app);
    const all = (await app.http.get('/api/admin/transactions').set(bearer(admin)).expect(200)).body as ListedRecord[];
    expect(all.filter((r) => r.ledgerTransactionId === hash)).toHaveLength(1);
    expect(await auditDiscrepancies(app)).toEqual([]);
  });

  it("records the owner's own payment out with the wallet's key (fee-bumped by someone else) once, and the wallet still transfers through the service", async () => {
    const { alice, bob, outside } = await setting(0);
    // The wallet's submitter has sent from it before: it holds the account's next sequence number.
    await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 }).expect(200);
    const key = await walletKey(app, alice);
    const hash = await payTokens(app, ledger.url, key, outside.publicKey(), '3', outside);
    // At once, before the follower has necessarily read it: the wallet's sequence number moved under the service.
    const after = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 2 }).expect(200);
    expect(after.body.result.status).not.toBe('pending');

    const rows = await followedOnce(app, hash);
    expect(rows.map((m) => [m.fromPublicKey, m.toPublicKey, m.amountStroops, m.fromUserId, m.toUserId])).toEqual([[alice.ledgerPublicKey, outside.publicKey(), 30_000_000n, alice.userId, null]]);
    const list = await listOf(app, alice);
    expect(list.filter((r) => r.ledgerTransactionId === hash).map((r) => [r.direction, r.origin, r.assetAmount])).toEqual([['out', 'ledger', 3]]);
    expect(list.filter((r) => r.ledgerTransactionId === after.body.result.hash).map((r) => [r.direction, r.origin, r.status])).toEqual([['out', 'service', 'confirmed']]);
    expect(await auditDiscrepancies(app)).toEqual([]);
  });

  it('records a movement made while the service was down once, after the restart', async () => {
    const { bob, outside } = await setting(10);
    // The service is down (this process follows no more); the ledger goes on.
    await app.container.ledgerModule.follower.stop();
    const hash = await payTokens(app, ledger.url, outside, bob.ledgerPublicKey, '1.5');
    expect(await recorded(app, hash)).toEqual([]);
    const restarted = await startAppKeepingDataOnSandboxes();
    try {
      expect((await followedOnce(restarted, hash)).map((m) => m.amountStroops)).toEqual([15_000_000n]);
      expect(await auditDiscrepancies(restarted)).toEqual([]);
    } finally {
      await restarted.close();
    }
  });

  it('two service processes following at once record each movement once', async () => {
    const { bob, outside } = await setting(10);
    const second = await startAppKeepingDataOnSandboxes();
    try {
      const hashes: string[] = [];
      for (const amount of ['1', '2', '3']) {
        hashes.push(await payTokens(app, ledger.url, outside, bob.ledgerPublicKey, amount));
        // Both race for the same pages.
        await Promise.all([app.container.ledgerModule.follower.run(), second.container.ledgerModule.follower.run()]);
      }
      for (const hash of hashes) await followedOnce(app, hash);
      await Promise.all([app.container.ledgerModule.follower.run(), second.container.ledgerModule.follower.run()]);
      const rows = await app.container.ledgerModule.movements.all();
      expect(rows.map((m) => m.ledgerTransactionId).sort()).toEqual([...hashes].sort());
      expect(await auditDiscrepancies(app)).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('a follower killed between reading a page and committing it loses nothing and records nothing twice', async () => {
    const { bob, outside } = await setting(10);
    const follower = app.container.ledgerModule.follower;
    const movements = app.container.ledgerModule.movements;
    const hash = await payTokens(app, ledger.url, outside, bob.ledgerPublicKey, '2');
    // The process dies after reading the page that holds the payment and before its commit.
    const commit = movements.commitPage.bind(movements);
    let killed = 0;
    movements.commitPage = async (owner, leaseMs, from, to, rows) => {
      if (rows.some((r) => r.ledgerTransactionId === hash)) {
        killed++;
        throw new Error('killed before the commit');
      }
      return commit(owner, leaseMs, from, to, rows);
    };
    await eventually(async () => {
      await follow(app);
      return killed > 0 ? true : undefined;
    }, 'the follower to reach the payment');
    expect(await recorded(app, hash)).toEqual([]);
    // Another process takes over once the dead one's lease has passed (it never gave it up).
    await app.container.database.db.execute(sql`update ledger_follow_cursor set lease_until = now() - interval '1 second'`);
    const second = await startAppKeepingDataOnSandboxes();
    try {
      expect(await followedOnce(second, hash)).toHaveLength(1);
      // The dead one's page, read again by the same code once it lives: still once.
      movements.commitPage = commit;
      await app.container.database.db.execute(sql`update ledger_follow_cursor set lease_until = now() - interval '1 second'`);
      await follower.run();
      expect(await recorded(second, hash)).toHaveLength(1);
      expect(killed).toBe(1);
      expect(await auditDiscrepancies(second)).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('under ingestion lag, never records past what an answer holds, and catches up once the ledger shows', async () => {
    const { bob, outside } = await setting(10);
    const client = app.container.ledgerModule.client;
    const observed = observeHistoryReads(client);
    ledger.faults.set({ mode: 'lag', lagMs: 3_000, next: 1 });
    const hash = await payTokens(app, ledger.url, outside, bob.ledgerPublicKey, '1');
    observed.paid = true;
    await app.container.ledgerModule.follower.run();
    await app.container.ledgerModule.follower.run();
    const rows = await followedOnce(app, hash);
    expect(rows).toHaveLength(1);
    const paidIn = rows[0]!.ledger;
    expectNoReadPast(observed.answers, hash, paidIn);
    // The lag was seen: some answer came from an instance that had not yet ingested the payment's ledger.
    expect(observed.answers.some((a) => a.askedAfterPayment && a.read.kind === 'page' && a.read.page.latestLedger < paidIn)).toBe(true);
    const metrics = (await app.http.get('/metrics').expect(200)).text;
    expect(metrics).toMatch(/^ledger_follow_lag_ledgers \d+$/m);
    expect(metrics).toMatch(/^ledger_follow_gaps 0$/m);
    expect(await auditDiscrepancies(app)).toEqual([]);
  });

  it('with instances at different ledgers behind one URL, never moves its position past what one answer held, and records each movement once', async () => {
    const { bob, outside } = await setting(10);
    const client = app.container.ledgerModule.client;
    const observed = observeHistoryReads(client);
    // Two instances behind the URL, one holding back the payment's ledger (and every later one):
    // consecutive reads reach one, then the other.
    ledger.faults.set({ mode: 'split-reads', lagMs: 5_000, next: 1 });
    const hash = await payTokens(app, ledger.url, outside, bob.ledgerPublicKey, '1');
    observed.paid = true;
    for (let pass = 0; pass < 6; pass++) {
      // One read more every other pass, so the follower's own reads reach both instances.
      if (pass % 2 === 1) await client.health();
      await follow(app);
    }
    const rows = await followedOnce(app, hash);
    expect(rows).toHaveLength(1);
    const paidIn = rows[0]!.ledger;
    // The follower heard both instances after the payment: one without its ledger, one with it.
    const pages = observed.answers.filter((a) => a.askedAfterPayment && a.read.kind === 'page').map((a) => (a.read as Extract<HistoryRead, { kind: 'page' }>).page);
    expect(pages.some((p) => p.latestLedger < paidIn)).toBe(true);
    expect(pages.some((p) => p.latestLedger >= paidIn)).toBe(true);
    expectNoReadPast(observed.answers, hash, paidIn);
    ledger.faults.clear();
    expect(await auditDiscrepancies(app)).toEqual([]);
  });

  it("settles the service's own transfer from the history when lookups by hash cannot see it yet (a split view)", async () => {
    const { alice, bob } = await setting(0);
    // Only the follower can settle it: the reconciler is stopped, and the send's answer is a 504
    // while lookups reach an instance behind the ledger.
    await app.container.reconciler.stop();
    ledger.faults.set({ mode: 'split-then-504', lagMs: 60_000, next: 1 });
    const sent = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 3 });
    expect([200, 202]).toContain(sent.status);
    const transactionId = sent.body.result.transactionId as string;
    const statusOf = async () => (await listOf(app, bob)).find((r) => r.transactionId === transactionId)?.status;
    await eventually(async () => {
      await follow(app);
      return (await statusOf()) === 'confirmed' ? true : undefined;
    }, 'the follower to confirm the transfer');
    // Lookups still cannot see it: the history settled it.
    expect((await app.container.ledgerModule.client.lookupTransaction(sent.body.result.hash as string)).kind).toBe('absent');
    ledger.faults.clear();
    expect(await app.container.ledgerModule.movements.all()).toEqual([]);
    expect(await auditDiscrepancies(app)).toEqual([]);
  });

  /** The service restarted on the data it left (a new process), with the file's sandboxes. */
  function startAppKeepingDataOnSandboxes(): Promise<TestApp> {
    return startAppKeepingData({ ...ledger.env, ...provider.env });
  }
});
