import express from 'express';
import request from 'supertest';
import { sql } from 'drizzle-orm';
import type { FaultPlan } from '@wallet/horizon-sandbox';
import { signPaystackPayload } from '@wallet/paystack-sandbox';
import type { Container } from '../../src/container';
import type { ReversalRow } from '../../src/db/repositories/reversal.repository';
import { BAD_DAYS, FAST_JOURNAL } from '../helpers/bad-days';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { ADMIN, bearer, createUser, userFields, type CreatedUser } from '../helpers/factories';
import { crashAroundSending, expireLeases, openJournal } from '../helpers/journal-fixtures';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { checkout, mintedPurchase, paymentRow, postWebhook, refundAtProvider, supplyTokens } from '../helpers/payment-fixtures';
import { LEDGER_APIS, listen, startPaystackSandbox, type RunningProvider } from '../helpers/sandboxes';
import { queryDatabase, runCli, scratchDatabase, serviceProcessEnv, startServiceProcess, type ServiceProcess } from '../helpers/service-process';
import { startAppKeepingData, startTestApp, type TestApp } from '../helpers/test-app';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * A refund after the mint takes the tokens back with exactly one clawback, under the same bad
 * days as every other ledger write (tests/faults/journal-faults.test.ts): the clawback's
 * submission applied and then answered badly, the process that sent it killed before it heard
 * the outcome, two processes working the same reversal at once. The buyer holds more than the
 * refunded purchase, so a second clawback would show on the ledger; the audit compares provider,
 * database and ledger after each.
 */

/** The bad days on which the ledger applied the clawback before the answer went wrong. */
const AFTER_APPLYING = BAD_DAYS.filter((day) => day.applied);

/** journal-faults' short deadlines, and a provider sweep that asks at once. */
const FAST = { ...FAST_JOURNAL, PAYMENT_FIRST_CHECK_MS: '0', PAYMENT_CHECK_RETRY_MS: '100' };

/** The buyer's two purchases: the second is refunded, the first stays (and would pay for a second clawback). */
const KEPT = 700;
const REFUNDED = 300;
const REFUNDED_STROOPS = 3_000_000_000n;

describe.each(LEDGER_APIS)('through %s', (api) => {
  const { ledger } = withSandboxes({ app: false, ledger: { api } });

  // The provider's signed webhooks reach whichever service the running test points `deliver` at,
  // through a relay on a real port (as in tests/integration/payment-reversals.test.ts).
  let deliver: ((body: string, signature: string | undefined) => Promise<number>) | undefined;
  let relay: { url: string; close(): Promise<void> };
  let provider: RunningProvider;
  let apps: TestApp[] = [];
  let processes: ServiceProcess[] = [];
  beforeAll(async () => {
    const forward = express();
    forward.post('/webhook', express.raw({ type: '*/*' }), async (req, res) => {
      if (!deliver) return void res.status(503).end();
      res.status(await deliver((req.body as Buffer).toString('utf8'), req.get('x-paystack-signature'))).end();
    });
    relay = await listen(forward);
    provider = await startPaystackSandbox(`${relay.url}/webhook`);
  });
  afterAll(async () => {
    await provider.stop();
    await relay.close();
  });
  afterEach(async () => {
    deliver = undefined;
    ledger.faults.clear();
    await Promise.all(apps.map((a) => a.close()));
    await Promise.all(processes.map((p) => p.kill('SIGTERM')));
    apps = [];
    processes = [];
  });

  /**
   * The service in this test process, its timers running; `reset: false` is a second process on the
   * same database. A reversal worker waits for its clawback's answer no longer than a request waits
   * for the ledger (the service's own 10 s is a wait the suite's patience would stretch), so on a bad
   * day it moves on with the outcome unknown and the journal finishes the clawback.
   */
  async function startService({ reset = true } = {}): Promise<TestApp> {
    const env = { ...ledger.env, ...provider.env, ...FAST };
    const waits = { mintWaitMs: Number(FAST.LEDGER_ANSWER_WAIT_MS) };
    const app = reset ? await startTestApp(env, 'silent', waits) : await startAppKeepingData(env, 'silent', waits);
    apps.push(app);
    app.container.start();
    return app;
  }

  const deliverTo = (app: TestApp) => {
    deliver = async (body, signature) => (await postWebhook(app, body, signature)).status;
  };

  /** The merchant refunds a charge in full at the provider, as from its dashboard. */
  const refund = (reference: string) => refundAtProvider(provider, reference);
  const purchase = mintedPurchase;

  /** A service with token supply and a buyer holding KEPT + REFUNDED tokens from two purchases, the journal settled. */
  async function buyerWithTwoPurchases(app: TestApp) {
    await supplyTokens(app);
    const buyer = await createUser(app);
    await purchase(app, buyer, KEPT);
    const reference = await purchase(app, buyer, REFUNDED);
    await settled(app);
    expect(await balance(buyer)).toBe('1000.0000000');
    return { buyer, reference };
  }

  const balance = (user: CreatedUser) => ledgerBalance(ledger.url, user.ledgerPublicKey);

  async function settled(app: TestApp): Promise<void> {
    await eventually(async () => ((await openJournal(app)) === 0 ? true : undefined), 'the journal to settle', { intervalMs: 100 });
  }

  /**
   * Sets `plan` on the ledger right before the first envelope carrying a clawback is handed to the
   * ledger API, so the fault falls on the reversal's clawback and not on anything before it.
   */
  function faultOnClawback(container: Container, plan: FaultPlan): { armed: () => boolean } {
    const sender = container.ledgerModule.accounts.sender;
    const send = sender.send.bind(sender);
    let armed = false;
    sender.send = async (envelopeId, tx, facts) => {
      const entries = await container.ledgerModule.repository.entriesOf(envelopeId);
      if (!armed && entries.some((e) => e.kind === 'clawback')) {
        armed = true;
        ledger.faults.set(plan);
      }
      return send(envelopeId, tx, facts);
    };
    return { armed: () => armed };
  }

  /** The refund.processed event as the service stored it, signed again for a redelivery (Paystack retries). */
  async function storedRefundEvent(app: TestApp, reference: string): Promise<{ body: string; signature: string } | undefined> {
    const event = (await app.container.webhookEvents.listByReference(reference)).find((e) => e.event === 'refund.processed');
    if (!event) return undefined;
    const body = JSON.stringify({ event: 'refund.processed', data: event.payload });
    return { body, signature: signPaystackPayload(body, provider.secretKey) };
  }

  /**
   * Works the queues as two processes' timers would (two reversal workers at once on each app),
   * with the refund webhook delivered again to every app meanwhile, until the reversal is done.
   */
  async function reversalDone(workers: TestApp[], reference: string): Promise<ReversalRow> {
    const [first] = workers;
    return eventually(
      async () => {
        const again = await storedRefundEvent(first!, reference);
        await Promise.all(
          workers.flatMap((app) => [
            again ? postWebhook(app, again.body, again.signature).expect(200) : Promise.resolve(),
            app.container.webhookInbox.run(),
            app.container.reversals.run(),
            app.container.reversals.run(),
            app.container.reconciler.run(),
          ]),
        );
        const rows = await first!.container.reversalRepo.listByReference(reference);
        return rows.length === 1 && rows[0]!.status === 'done' ? rows[0] : undefined;
      },
      `the reversal of ${reference} to be done`,
      { intervalMs: 50 },
    );
  }

  /** Every clawback entry of the user, whatever its state. */
  const clawbacks = (app: TestApp, userId: string) =>
    queryRows<{ status: string; amount_stroops: string }>(app.container.database, sql`select status, amount_stroops::text from ledger_entries where kind = 'clawback' and user_id = ${userId} order by created_at`);

  /** One confirmed clawback of the refunded tokens, the kept purchase still on the wallet, the audit clean. */
  async function expectClawedOnce(app: TestApp, buyer: CreatedUser, reference: string, reversal: ReversalRow): Promise<void> {
    expect(reversal).toMatchObject({ status: 'done', cause: 'refund', tokensStroops: REFUNDED_STROOPS, clawedStroops: REFUNDED_STROOPS, debtStroops: 0n });
    ledger.faults.clear();
    await settled(app);
    expect(await clawbacks(app, buyer.userId)).toEqual([{ status: 'confirmed', amount_stroops: String(REFUNDED_STROOPS) }]);
    expect(await balance(buyer)).toBe(`${KEPT}.0000000`);
    expect(await paymentRow(app, reference)).toMatchObject({ status: 'reversed' });
    expect(await app.container.reversalRepo.listByReference(reference)).toHaveLength(1);
    expect((await app.container.audit()).discrepancies).toEqual([]);
  }

  describe.each(AFTER_APPLYING)('with the clawback answered: $name', ({ plan }) => {
    it('takes the refunded tokens back once, with the refund delivered again and two workers at once', async () => {
      const app = await startService();
      const { buyer, reference } = await buyerWithTwoPurchases(app);
      const faultsBefore = ledger.faults.stats[plan.mode];
      const fault = faultOnClawback(app.container, plan);
      deliverTo(app);

      await refund(reference);
      const reversal = await reversalDone([app], reference);

      // The bad day really happened, and to the clawback.
      expect(fault.armed()).toBe(true);
      expect(ledger.faults.stats[plan.mode]).toBeGreaterThan(faultsBefore);
      await expectClawedOnce(app, buyer, reference, reversal);
    });
  });

  describe('a process that stored the clawback envelope and died around sending it', () => {
    it.each(['before-send', 'after-send'] as const)('%s: the reconciler finishes it once its lease passed, and the tokens come back once', async (when) => {
      const app = await startService();
      const { buyer, reference } = await buyerWithTwoPurchases(app);
      const crash = crashAroundSending(app.container, when, 'clawback');
      deliverTo(app);

      await refund(reference);
      await eventually(async () => {
        await app.container.webhookInbox.run();
        await app.container.reversals.run();
        return crash.crashed.length > 0 ? true : undefined;
      }, 'the clawback envelope to be stored and its process to die');
      crash.restore();
      // Stored, claimed by the reversal, and its outcome unknown to the journal.
      const [open] = await app.container.reversalRepo.listByReference(reference);
      expect(open).toMatchObject({ status: 'clawing' });
      expect(await balance(buyer)).toBe(when === 'before-send' ? '1000.0000000' : `${KEPT}.0000000`);

      await expireLeases(app);
      const reversal = await reversalDone([app], reference);
      await expectClawedOnce(app, buyer, reference, reversal);
      expect((await clawbacks(app, buyer.userId)).length).toBe(1);
      expect(crash.crashed).toHaveLength(1);
    });
  });

  describe('two service instances on one database', () => {
    it('working the same reversal at the same moment take the tokens back once', async () => {
      const a = await startService();
      const { buyer, reference } = await buyerWithTwoPurchases(a);
      const b = await startService({ reset: false });
      // Both workers stop right before committing their clawback, until the other has claimed the
      // reversal too: the second claims it once the first one's lease is over (a slow first process).
      const reached = new Set<TestApp>();
      let bothThere!: () => void;
      const meet = new Promise<void>((resolve) => (bothThere = resolve));
      for (const app of [a, b]) {
        const writes = app.container.ledgerModule.bootstrap;
        const write = writes.write.bind(writes);
        writes.write = async (command, options) => {
          if (command.kind === 'clawback') {
            reached.add(app);
            if (reached.size === 2) bothThere();
            await meet;
          }
          return write(command, options);
        };
      }
      deliverTo(a);

      await refund(reference);
      await eventually(async () => (reached.has(a) ? true : undefined), 'the first instance to reach the clawback');
      const [row] = await a.container.reversalRepo.listByReference(reference);
      await a.container.database.db.execute(sql`update payment_reversals set next_check_at = now() where id = ${row!.id}`);
      await eventually(async () => {
        await b.container.reversals.run();
        return reached.has(b) ? true : undefined;
      }, 'the second instance to reach the same clawback');
      const reversal = await reversalDone([a, b], reference);

      await expectClawedOnce(a, buyer, reference, reversal);
      expect((await b.container.audit()).discrepancies).toEqual([]);
    });
  });

  describe('a service process killed with SIGKILL after sending the clawback, before it heard the outcome', () => {
    /** Long enough that only the test's faults.clear() ends it: the killed process cannot have seen its clawback on the ledger. */
    const HELD_BACK_MS = 3_600_000;

    function serviceEnv(databaseUrl: string): Record<string, string> {
      return serviceProcessEnv(databaseUrl, { ...FAST, ...ledger.env, ...provider.env, LEDGER_SUBMIT_TIMEOUT_MS: '1000', LEDGER_ANSWER_WAIT_MS: '2000' });
    }

    const deliverToProcess = (service: ServiceProcess) => {
      deliver = async (body, signature) => {
        const res = await fetch(`${service.url}/api/payments/webhook`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'x-paystack-signature': signature ?? '' }, body });
        return res.status;
      };
    };

    /** Sends until the answer is final, as a phone does: 202, 409, 5xx and a dead connection are asked again. */
    const final = (send: () => Promise<request.Response>, what: string) =>
      eventually(async () => {
        const res = await send().catch(() => undefined);
        return !res || res.status === 202 || res.status === 409 || res.status >= 500 ? undefined : res;
      }, what, { intervalMs: 100 });

    const one = async <T>(databaseUrl: string, text: string): Promise<T | undefined> => (await queryDatabase<T>(databaseUrl, text))[0];

    async function signUp(service: ServiceProcess) {
      const fields = userFields();
      const signup = await request(service.url).post('/api/users/signup').send(fields).expect(201);
      const login = await request(service.url).post('/api/users/login').send({ identifier: fields.username, password: fields.password }).expect(200);
      const buyer = { userId: signup.body.userId as string, token: login.body.token as string, publicKey: login.body.profile.ledgerPublicKey as string };
      await eventually(async () => ((await ledgerBalance(ledger.url, buyer.publicKey).catch(() => undefined)) !== undefined ? true : undefined), 'the wallet on the ledger');
      return buyer;
    }

    async function bought(service: ServiceProcess, databaseUrl: string, buyer: { token: string }, naira: number): Promise<string> {
      const intent = await final(() => request(service.url).post('/api/payments/create-payment-intent').set(bearer(buyer.token)).send({ amount: naira }), 'an intent');
      await checkout(intent.body, 'pay');
      const reference = intent.body.reference as string;
      await final(() => request(service.url).post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference }), 'a verify');
      await eventually(async () => ((await one<{ status: string }>(databaseUrl, `select status from payments where reference = '${reference}'`))?.status === 'minted' ? true : undefined), `payment ${reference} minted`);
      return reference;
    }

    const journalOpen = async (databaseUrl: string) =>
      Number(
        (await one<{ n: string }>(databaseUrl, `select (select count(*) from ledger_envelopes where status in ('pending', 'submitted')) + (select count(*) from ledger_entries where status in ('pending', 'submitted')) as n`))!.n,
      );

    const clawbackState = (databaseUrl: string) =>
      queryDatabase<{ entry: string; reversal: string }>(databaseUrl, `select e.status as entry, r.status as reversal from payment_reversals r join ledger_entries e on e.reversal_id = r.id where e.kind = 'clawback'`);

    it('is finished by the next process on the database: the clawback applies once', async () => {
      const databaseUrl = await scratchDatabase(`clawback_kill_${api}_${process.pid}`);
      const env = serviceEnv(databaseUrl);
      const first = await startServiceProcess(env);
      processes.push(first);
      deliverToProcess(first);
      const admin = (await request(first.url).post('/api/admin/login').send(ADMIN).expect(200)).body.token as string;
      await final(() => request(first.url).post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '10000' }), 'create-asset');
      const buyer = await signUp(first);
      await bought(first, databaseUrl, buyer, KEPT);
      const reference = await bought(first, databaseUrl, buyer, REFUNDED);
      await eventually(async () => ((await journalOpen(databaseUrl)) === 0 ? true : undefined), 'the journal to settle');
      expect(await ledgerBalance(ledger.url, buyer.publicKey)).toBe('1000.0000000');

      // The next submission (the clawback: nothing else is open) is applied and answered 504, and
      // the ledger's reads stay behind it until the test clears the fault.
      const faultsBefore = ledger.faults.stats['lag-then-504'];
      ledger.faults.set({ mode: 'lag-then-504', lagMs: HELD_BACK_MS, next: 1 });
      await refund(reference);
      await eventually(
        async () => (ledger.faults.stats['lag-then-504'] > faultsBefore && (await clawbackState(databaseUrl))[0]?.entry === 'submitted' ? true : undefined),
        'the clawback to be sent',
      );
      await first.kill('SIGKILL');
      // Gone: ServiceProcess.kill() would wait for an exit that already happened (exitCode stays null after a signal).
      processes = processes.filter((p) => p !== first);
      // Killed before it learned the outcome.
      expect(await clawbackState(databaseUrl)).toEqual([{ entry: 'submitted', reversal: 'clawing' }]);

      ledger.faults.clear();
      const second = await startServiceProcess(env);
      processes.push(second);
      deliverToProcess(second);
      await eventually(async () => ((await one<{ status: string }>(databaseUrl, `select status from payment_reversals`))?.status === 'done' ? true : undefined), 'the reversal to be done');
      await eventually(async () => ((await journalOpen(databaseUrl)) === 0 ? true : undefined), 'the journal to settle');

      expect(await clawbackState(databaseUrl)).toEqual([{ entry: 'confirmed', reversal: 'done' }]);
      expect(await queryDatabase(databaseUrl, `select clawed_stroops::text as clawed, debt_stroops::text as debt from payment_reversals`)).toEqual([{ clawed: String(REFUNDED_STROOPS), debt: '0' }]);
      expect(await ledgerBalance(ledger.url, buyer.publicKey)).toBe(`${KEPT}.0000000`);
      const audit = await runCli('ledger-audit', env);
      expect({ code: audit.code, output: audit.output }).toEqual({ code: 0, output: expect.stringContaining('the database and the ledger agree') });
    });
  });
});
