import { sql } from 'drizzle-orm';
import type { LedgerApi } from '../../src/clients/ledger-api';
import { queryRows } from '../helpers/database-state';
import { allEnvelopes, openJournal } from '../helpers/journal-fixtures';
import { eventually } from '../helpers/eventually';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { fundedUser, ledgerBalance } from '../helpers/ledger-fixtures';
import { chargeSuccess, mintRecords, paidIntent, postWebhook, signedEvent, supplyTokens } from '../helpers/payment-fixtures';
import { LEDGER_APIS } from '../helpers/sandboxes';
import { startAppKeepingData, startTestApp, type TestApp } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * A load-balanced ledger API whose instances stand at different ledgers. Submissions apply and are
 * answered with a timeout; then, for SPLIT_MS (many times the envelopes' ledger bounds),
 * every lookup by hash reaches an instance that has not ingested the ledger that applied it (a
 * consistent older prefix: its own latest ledger is the one before), while account and
 * latest-ledger reads reach an instance that has. Ledgers close on a timer meanwhile, so the
 * network passes each envelope's last ledger long before the lookups can see it.
 *
 * A rule that combines answers (the hash absent from one instance, the source account's sequence
 * spent on another) judges the applied envelope dead and signs its payment again. Every key and
 * every payment reference must move money exactly once, no envelope judged dead may be on the
 * ledger, and the audit must find nothing.
 */

const SPLIT_MS = 6000;
const LEDGER_CLOSE_MS = 250;
/** Both processes: the same channel accounts. */
const CHANNELS = { LEDGER_CHANNELS: '2' };
/** The process under the split: short deadlines, so unclear answers happen and the reconciler takes over within the test. */
const JOURNAL = {
  ...CHANNELS,
  LEDGER_TX_TIMEOUT_LEDGERS: '4', // about a second of ledgers: the split lasts six times that
  LEDGER_SUBMIT_TIMEOUT_MS: '800',
  LEDGER_SETTLE_BASE_MS: '50',
  LEDGER_ANSWER_WAIT_MS: '1000',
  LEDGER_LEASE_MS: '1500',
  LEDGER_RECHECK_MS: '200',
  RECONCILE_INTERVAL_MS: '250',
  WEBHOOK_RETRY_BASE_MS: '200',
};

/** The latest ledger of the instance that answers every read but the lookups by hash (Horizon's root). */
async function readSideLedger(ledgerUrl: string): Promise<number> {
  const res = await fetch(`${ledgerUrl}/`);
  if (!res.ok) throw new Error(`the ledger's root answered ${res.status}`);
  return ((await res.json()) as { history_latest_ledger: number }).history_latest_ledger;
}

/** A lookup by hash the service made that an instance behind the others answered "absent". */
interface LaggingAnswer {
  hash: string;
  /** The answering instance's latest ledger. */
  latestLedger: number;
  /** The other instance's latest ledger, read just before the lookup was sent. */
  readSideLedger: number;
}

/**
 * A pass-through observer of the service's lookups by hash. Before each, the up-to-date instance's
 * latest ledger is read; an "absent" answer whose own latest ledger is below it came from an
 * instance behind that one (without a split both stand at the same ledger), the lagging one.
 */
function watchLookups(client: LedgerApi, ledgerUrl: string): LaggingAnswer[] {
  const lagging: LaggingAnswer[] = [];
  const lookup = client.lookupTransaction.bind(client);
  client.lookupTransaction = async (hash) => {
    const before = await readSideLedger(ledgerUrl);
    const answer = await lookup(hash);
    if (answer.kind === 'absent' && answer.latestLedger < before) lagging.push({ hash, latestLedger: answer.latestLedger, readSideLedger: before });
    return answer;
  };
  return lagging;
}

/** The ledger that holds a transaction (by its own or, for a fee bump, its inner hash), or undefined. */
async function ledgerOf(ledgerUrl: string, hash: string): Promise<number | undefined> {
  const res = await fetch(`${ledgerUrl}/transactions/${hash}`);
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`the lookup of ${hash} answered ${res.status}`);
  return ((await res.json()) as { ledger: number }).ledger;
}

/** Sends until the answer is final, as a client does: 202, 409 (in progress) and 5xx are asked again. */
function retryUntilFinal(send: () => Promise<{ status: number; body: unknown }>, what: string) {
  return eventually(async () => {
    const res = await send();
    return res.status === 202 || res.status === 409 || res.status >= 500 ? undefined : res;
  }, what, { intervalMs: 150 });
}

describe.each(LEDGER_APIS)('through %s, with lookups by hash on an instance a ledger behind', (api) => {
  const { ledger, provider } = withSandboxes({ app: false, ledger: { api, ledgerCloseMs: LEDGER_CLOSE_MS, idleCloseMs: LEDGER_CLOSE_MS } });
  let app: TestApp;
  let setup: TestApp;
  let lagging: LaggingAnswer[];

  // The users, tokens and paid references are made by a process with the service's own deadlines,
  // which a busy machine cannot make it miss; the split meets the process with the short ones.
  beforeAll(async () => {
    setup = await startTestApp({ ...ledger.env, ...provider.env, ...CHANNELS });
    await supplyTokens(setup); // the ledger's accounts are set up here too
    app = await startAppKeepingData({ ...ledger.env, ...provider.env, ...JOURNAL });
    lagging = watchLookups(app.container.ledgerModule.client, ledger.url);
    app.container.start();
  });
  afterAll(async () => {
    await setup.close();
    await app.close();
  });

  it('moves every key and every payment reference once, and the audit is clean', async () => {
    const admin = await adminToken(setup);
    const alice = await fundedUser(setup, 10);
    const [bob, carol] = [await createUser(setup), await createUser(setup)];
    const buyers = [await createUser(setup), await createUser(setup), await createUser(setup)];
    const intents = await Promise.all(buyers.map((buyer, i) => paidIntent(setup, buyer, 10 * (i + 1))));
    const faultsBefore = ledger.faults.stats['split-then-504'];
    // The first submissions of the load (a lookup instance that lags for ever would rightly leave
    // everything open for ever: a split heals, and then the truth must come out once).
    ledger.faults.set({ mode: 'split-then-504', lagMs: SPLIT_MS, next: 4 });

    const three = <T>(send: () => Promise<T>) => Promise.all([send(), send(), send()]);
    const [transfers, mints, ...settlements] = await Promise.all([
      three(() => retryUntilFinal(() => app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'split-transfer').send({ receiverPublicKey: bob.ledgerPublicKey, amount: 3 }), 'a transfer')),
      three(() => retryUntilFinal(() => app.http.post('/api/payments/mint-tokens').set(bearer(admin)).set('Idempotency-Key', 'split-mint').send({ userId: carol.userId, amount: 7 }), 'a mint')),
      ...intents.map((intent, i) => {
        const buyer = buyers[i]!;
        const { body, signature } = signedEvent(chargeSuccess(intent.reference, 1000 * (i + 1)), provider.secretKey);
        return Promise.all([
          retryUntilFinal(() => app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: intent.reference }), 'a verify'),
          retryUntilFinal(() => app.http.get(`/api/payments/callback?reference=${intent.reference}`), 'a callback page'),
          retryUntilFinal(() => postWebhook(app, body, signature), 'a webhook'),
        ]);
      }),
    ]);

    // The split really happened: submissions were answered with a timeout while lookups lagged.
    expect(ledger.faults.stats['split-then-504']).toBeGreaterThan(faultsBefore);
    expect(transfers.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(mints.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const answers of settlements) expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    for (const intent of intents) {
      await eventually(async () => ((await app.container.payments.find(intent.reference))?.status === 'minted' ? true : undefined), 'the payment to be minted');
    }

    // The journal settles with the split left to heal by itself (the fault is cleared only after).
    // Through Horizon a resubmission is answered from its up-to-date history, so envelopes may settle
    // while lookups still lag; through RPC only getTransaction tells an outcome, so they settle once
    // the lookups catch up.
    await eventually(async () => ((await openJournal(app)) === 0 ? true : undefined), 'the journal to settle', { intervalMs: 200 });
    ledger.faults.clear();
    // The lagging instance answered lookups while the split lasted, not only before or after it: at
    // least one lookup called absent an envelope the ledger had already applied (in a ledger the read
    // made just before that lookup had seen). Each such envelope ended confirmed, none judged dead.
    const lookups: (LaggingAnswer & { applied: number | undefined })[] = [];
    for (const answer of lagging) lookups.push({ ...answer, applied: await ledgerOf(ledger.url, answer.hash) });
    const hidden = new Set(lookups.filter((l) => l.applied !== undefined && l.applied > l.latestLedger && l.applied <= l.readSideLedger).map((l) => l.hash));
    const envelopes = await allEnvelopes(app);
    // This guard failed once in CI's history, on a machine running other suites beside it, and the
    // cause was not found again: should it fail, its message carries what tells a split the load
    // did not meet apart from a rule that broke.
    if (hidden.size === 0) {
      const sent = envelopes.map((e) => ({ hash: e.hash, status: e.status, ledger: e.ledger, submitCount: e.submitCount }));
      throw new Error(`no lookup answered absent for an applied envelope during the split: ${JSON.stringify({ lookups, sent, faults: ledger.faults.stats })}`);
    }
    for (const hash of hidden) {
      const carrying = envelopes.filter((e) => e.hash === hash || e.outerHash === hash || e.priorOuterHashes.includes(hash));
      expect([hash, carrying.map((e) => e.status)]).toEqual([hash, ['confirmed']]);
    }
    const balance = (user: CreatedUser) => ledgerBalance(ledger.url, user.ledgerPublicKey);
    expect([await balance(alice), await balance(bob), await balance(carol)]).toEqual(['7.0000000', '3.0000000', '7.0000000']);
    expect(await Promise.all(buyers.map(balance))).toEqual(['10.0000000', '20.0000000', '30.0000000']);
    for (const buyer of buyers) expect(await mintRecords(app, buyer.userId)).toHaveLength(1);
    expect(await mintRecords(app, carol.userId)).toHaveLength(1);
    // An envelope may rightly be judged dead (on a busy machine one can outlive its four ledgers
    // in the queue); then the whole ledger, seen after the split, must not hold it.
    const dead = await queryRows<{ hash: string }>(app.container.database, sql`select hash from ledger_envelopes where failure like 'never_applies%'`);
    for (const { hash } of dead) expect([hash, (await fetch(`${ledger.url}/transactions/${hash}`)).status]).toEqual([hash, 404]);
    const audit = await app.container.audit();
    expect(audit.discrepancies).toEqual([]);
  });
});

