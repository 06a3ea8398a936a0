import { sandboxControlPaths } from '@wallet/paystack-sandbox';
import { sql } from 'drizzle-orm';
import type { EntryKind } from '../../src/db/schema';
import { parseTokenAmount } from '../../src/domain/amounts';
import { BAD_DAYS, FAST_JOURNAL } from '../helpers/bad-days';
import { queryRows } from '../helpers/database-state';
import { openJournal } from '../helpers/journal-fixtures';
import { eventually } from '../helpers/eventually';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { chargeSuccess, paidIntent, postWebhook, signedEvent } from '../helpers/payment-fixtures';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { LEDGER_APIS } from '../helpers/sandboxes';
import { withSandboxes } from '../helpers/with-sandboxes';
import { providerControl } from '../helpers/provider-relay';
import { addPayoutAccount, FAST_CASH_OUT, randomAccountNumber, setProviderBalance, transfersToAccount, withdraw, withdrawalRow } from '../helpers/withdrawal-fixtures';

/**
 * Every ledger write kind under every way the ledger API answers on a bad day, through each of the
 * service's two adapters (Stellar RPC and Horizon), with callers that retry as phones and browsers do: each movement happens exactly once, has exactly one record, and the
 * audit finds the database and the ledger in agreement.
 */

describe.each(LEDGER_APIS)('through %s', (api) => {
  // One app per bad day (below), not per test: the afterAll audit covers all of the day's writes.
  const { ledger, provider } = withSandboxes({ app: false, ledger: { api } });

  /** Sends until the answer is final, as a client does: 202, 409 (in progress) and 5xx are asked again. */
  async function retryUntilFinal<Answer extends { status: number }>(send: () => Promise<Answer>, what: string): Promise<Answer> {
    return eventually(
      async () => {
        const res = await send();
        return res.status === 202 || res.status === 409 || res.status >= 500 ? undefined : res;
      },
      what,
      { intervalMs: 150 },
    );
  }

  describe.each(BAD_DAYS)('with the ledger answering: $name', ({ plan }) => {
    let app: TestApp;
    let admin: string;

    // What only sets a test up is asked for as a client would, until final: the short deadlines
    // above are for the bad day, and a busy machine can make a plain write outlast them too (202).
    beforeAll(async () => {
      // The cash-out's quick sweep under the journal's bad-day deadlines (FAST_JOURNAL wins where both set one).
      app = await startTestApp({ ...ledger.env, ...provider.env, ...FAST_CASH_OUT, ...FAST_JOURNAL });
      app.container.start();
      admin = await adminToken(app);
      // Issued (200) or under way (202: the journal finishes it); a 5xx moved nothing, ask again.
      const supply = () => app.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '100000' });
      const issued = await eventually(async () => {
        const res = await supply();
        return res.status < 500 ? res : undefined;
      }, 'the supply to be issued', { intervalMs: 150 });
      expect([200, 202]).toContain(issued.status);
      await settled(app);
      // The provider pays withdrawals out of this (kobo).
      await setProviderBalance(provider, 100_000_00);
    });

    /** A new user holding `tokens` (from the supply issued above), minted with a key until final. */
    async function fundedUser(tokens: number): Promise<CreatedUser> {
      const user = await createUser(app);
      const mint = () => app.http.post('/api/payments/mint-tokens').set(bearer(admin)).set('Idempotency-Key', `fund-${user.userId}`).send({ userId: user.userId, amount: tokens });
      expect((await retryUntilFinal(mint, 'the funding mint')).status).toBe(200);
      await settled(app);
      return user;
    }

    /** The sandbox's count of this day's faults when the test's write armed it (undefined: never armed). */
    let faultsWhenArmed: number | undefined;
    let disarm: (() => void) | undefined;

    /**
     * Sets the bad day on the ledger right before the first envelope carrying an entry of `kind` is
     * handed to the ledger API, so the fault falls on the write under test and not on anything sent
     * before it (as in clawback-faults); the sandbox's count is taken at that moment.
     */
    function faultOnWrite(kind: EntryKind): void {
      const { accounts, repository } = app.container.ledgerModule;
      const sender = accounts.sender;
      const send = sender.send.bind(sender);
      sender.send = async (envelopeId, tx, facts) => {
        const entries = await repository.entriesOf(envelopeId);
        if (faultsWhenArmed === undefined && entries.some((e) => e.kind === kind)) {
          faultsWhenArmed = ledger.faults.stats[plan.mode];
          ledger.faults.set(plan);
        }
        return send(envelopeId, tx, facts);
      };
      disarm = () => {
        sender.send = send;
      };
    }

    afterEach(() => {
      disarm?.();
      disarm = undefined;
      const armedAt = faultsWhenArmed;
      faultsWhenArmed = undefined;
      ledger.faults.clear();
      // The bad day really happened, to the write under test: its envelope armed the fault, and the
      // sandbox answered at least one submission this way from then on.
      expect(armedAt).toEqual(expect.any(Number));
      expect(ledger.faults.stats[plan.mode]).toBeGreaterThan(armedAt!);
    });
    afterAll(async () => {
      // Everything settled, then the database and the ledger must agree.
      await eventually(async () => ((await openJournal(app)) === 0 ? true : undefined), 'the journal to settle', { intervalMs: 200 });
      const audit = await app.container.audit();
      await app.close();
      expect(audit.discrepancies).toEqual([]);
    });

    const balance = (user: CreatedUser) => ledgerBalance(ledger.url, user.ledgerPublicKey);

    it('a transfer retried with one Idempotency-Key by three callers moves the tokens once', async () => {
      const alice = await fundedUser(10);
      const bob = await createUser(app);
      faultOnWrite('transfer');

      const answers = await Promise.all(
        [1, 2, 3].map(() =>
          retryUntilFinal(
            () => app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'bad-day-transfer').send({ receiverPublicKey: bob.ledgerPublicKey, amount: 2 }),
            'a final transfer answer',
          ),
        ),
      );

      const ids = answers.map((a) => (a.body as { result: { transactionId: string } }).result.transactionId);
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(new Set(ids).size).toBe(1);
      await settled(app);
      expect([await balance(alice), await balance(bob)]).toEqual(['8.0000000', '2.0000000']);
      expect(await recordsOf(app, alice.userId, 'transfer')).toEqual([{ status: 'confirmed', id: ids[0] }]);
    });

    it('an admin mint retried with one Idempotency-Key by three callers mints once', async () => {
      const bob = await createUser(app);
      faultOnWrite('admin_mint');

      const answers = await Promise.all(
        [1, 2, 3].map(() =>
          retryUntilFinal(
            () => app.http.post('/api/payments/mint-tokens').set(bearer(admin)).set('Idempotency-Key', `bad-day-mint-${bob.userId}`).send({ userId: bob.userId, amount: 5 }),
            'a final mint answer',
          ),
        ),
      );

      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect(new Set(answers.map((a) => (a.body as { hash: string }).hash)).size).toBe(1);
      await settled(app);
      expect(await balance(bob)).toBe('5.0000000');
      expect(await recordsOf(app, bob.userId, 'admin_mint')).toHaveLength(1);
    });

    it('a paid reference verified, called back and delivered by webhook at once mints once', async () => {
      const buyer = await createUser(app);
      const intent = await paidIntent(app, buyer, 40);
      const { body, signature } = signedEvent(chargeSuccess(intent.reference, 4000), provider.secretKey);
      faultOnWrite('payment_mint');

      const answers = await Promise.all([
        ...[1, 2].map(() =>
          retryUntilFinal(() => app.http.post('/api/payments/verify-payment').set(bearer(buyer.token)).send({ reference: intent.reference }), 'a verify answer'),
        ),
        retryUntilFinal(() => app.http.get(`/api/payments/callback?reference=${intent.reference}`), 'a callback page'),
        ...[1, 2].map(() => retryUntilFinal(() => postWebhook(app, body, signature), 'a webhook answer')),
      ]);

      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      await eventually(async () => ((await app.container.payments.find(intent.reference))?.status === 'minted' ? true : undefined), 'the payment to be minted');
      await settled(app);
      expect(await balance(buyer)).toBe('40.0000000');
      expect(await recordsOf(app, buyer.userId, 'payment_mint')).toHaveLength(1);
    });

    it('create-asset issues once, whatever the answer to its submission, with the admin retrying one Idempotency-Key until final', async () => {
      const { distribution } = (await app.container.ledgerModule.bootstrap.ready()).keys;
      const before = await ledgerBalance(ledger.url, distribution.publicKey());
      const issuesBefore = await recordsOf(app, null, 'issue');
      faultOnWrite('issue');
      const key = `issue-${plan.mode}-${issuesBefore.length}`;
      const send = () => app.http.post('/api/ledger/create-asset').set(bearer(admin)).set('Idempotency-Key', key).send({ assetCode: 'WLT', amount: '7' });

      const res = await send();
      // Issued (200) if the ledger's outcome was known within LEDGER_ANSWER_WAIT_MS, else submitted
      // (202): on the slow and lagging days that is a genuine race. The answer says which it is.
      if (res.status === 200) expect(res.text).toMatch(/^Issued 7\.0000000 WLT to the distribution account \(transaction [0-9a-f]{64}\)$/);
      else expect([res.status, res.text]).toEqual([202, expect.stringMatching(/^Issuing 7\.0000000 WLT: submitted, outcome not known yet/)]);
      // The admin retries (after a 202, as a client that lost the answer would): the same issue's state, never a second one.
      const final = await retryUntilFinal(send, 'the issue to be final');
      expect([final.status, final.text]).toEqual([200, expect.stringMatching(/^Issued 7\.0000000 WLT to the distribution account/)]);
      await settled(app);
      const after = await ledgerBalance(ledger.url, distribution.publicKey());
      // Exact stroops, never float arithmetic on money: issued once means exactly 7 more.
      expect(parseTokenAmount(after!)! - parseTokenAmount(before!)!).toBe(70_000_000n);
      const issued = (await recordsOf(app, null, 'issue')).filter((r) => !issuesBefore.some((b) => b.id === r.id));
      expect(issued.map((r) => r.status)).toEqual(['confirmed']);
    });

    /**
     * POST /api/payments/withdrawals with `key`, asked again as a client does on 409 and 5xx (a
     * withdrawal's answer is 202 however far it got: the sweep pays it).
     */
    function withdrawUntilAnswered(user: CreatedUser, body: Record<string, unknown>, key: string) {
      return eventually(
        async () => {
          const res = await withdraw(app, user, body, key);
          return res.status === 409 || res.status >= 500 ? undefined : res;
        },
        'a withdrawal answer',
        { intervalMs: 150 },
      );
    }

    /** Waits until the withdrawal is final (paid, its tokens back, or never taken), and answers its row. */
    function withdrawalFinal(id: string) {
      return eventually(async () => {
        const row = await withdrawalRow(app, id);
        return row && ['paid', 'refunded', 'debit_failed', 'cancelled'].includes(row.status) ? row : undefined;
      }, `withdrawal ${id} to be final`);
    }

    it('a withdrawal retried with one Idempotency-Key by three callers takes the tokens once and is paid once', async () => {
      const alice = await fundedUser(10);
      const accountNumber = randomAccountNumber();
      const account = await addPayoutAccount(app, alice, accountNumber);
      faultOnWrite('withdrawal');

      const key = `bad-day-withdrawal-${alice.userId}`;
      const answers = await Promise.all([1, 2, 3].map(() => withdrawUntilAnswered(alice, { amount: 4, payoutAccountId: account }, key)));

      expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
      const ids = new Set(answers.map((a) => (a.body as { withdrawalId: string }).withdrawalId));
      expect(ids.size).toBe(1);
      const paid = await withdrawalFinal([...ids][0]!);
      await settled(app);
      expect(paid.status).toBe('paid');
      expect(await balance(alice)).toBe('6.0000000');
      expect((await recordsOf(app, alice.userId, 'withdrawal')).map((r) => r.status)).toEqual(['confirmed']);
      expect(await recordsOf(app, alice.userId, 'withdrawal_refund')).toEqual([]);
      expect((await transfersToAccount(provider, accountNumber)).map((t) => [t.reference, t.status, t.amount])).toEqual([[paid.reference, 'success', 400]]);
    });

    it('a withdrawal the provider fails gives its tokens back once', async () => {
      const bob = await fundedUser(10);
      const accountNumber = randomAccountNumber();
      const account = await addPayoutAccount(app, bob, accountNumber);
      // The provider answers the next transfer `failed`: the tokens are owed back, by the refund under test.
      await providerControl(provider, sandboxControlPaths.nextTransfer(), { outcome: 'failed' });
      faultOnWrite('withdrawal_refund');

      const res = await withdrawUntilAnswered(bob, { amount: 4, payoutAccountId: account }, `bad-day-refund-${bob.userId}`);

      expect(res.status).toBe(202);
      const refunded = await withdrawalFinal((res.body as { withdrawalId: string }).withdrawalId);
      await settled(app);
      expect([refunded.status, refunded.providerStatus]).toEqual(['refunded', 'failed']);
      expect(await balance(bob)).toBe('10.0000000');
      expect((await recordsOf(app, bob.userId, 'withdrawal')).map((r) => r.status)).toEqual(['confirmed']);
      expect((await recordsOf(app, bob.userId, 'withdrawal_refund')).map((r) => r.status)).toEqual(['confirmed']);
      expect((await transfersToAccount(provider, accountNumber)).map((t) => [t.reference, t.status])).toEqual([[refunded.reference, 'failed']]);
    });

    it('a signup puts its wallet on the ledger once', async () => {
      faultOnWrite('activation');
      const carol = await createUser(app);

      await eventually(async () => ((await app.container.wallets.findByUserId(carol.userId))?.status === 'active' ? true : undefined), 'the wallet to be active');
      await settled(app);
      expect(await balance(carol)).toBe('0.0000000');
      const activations = await queryRows<{ status: string }>(app.container.database, sql`select status from ledger_entries where kind = 'activation' and user_id = ${carol.userId}`);
      expect(activations.filter((a) => a.status === 'confirmed')).toHaveLength(1);
    });
  });


  /** Waits for the background reconciler to settle everything (the faults are over by then). */
  async function settled(app: TestApp): Promise<void> {
    ledger.faults.clear();
    await eventually(async () => ((await openJournal(app)) === 0 ? true : undefined), 'the journal to settle', { intervalMs: 100 });
  }

  /** The journal's entries of one kind, a user's (or, with null, the service's own, as an issue). */
  async function recordsOf(app: TestApp, userId: string | null, kind: string) {
    return queryRows<{ status: string; id: string }>(
      app.container.database,
      sql`select status, id from ledger_entries where user_id is not distinct from ${userId} and kind = ${kind} order by created_at`,
    );
  }
});
