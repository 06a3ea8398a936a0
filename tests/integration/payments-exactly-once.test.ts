import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { eventually } from '../helpers/eventually';
import { allEnvelopes, crashAroundSending, expireLeases } from '../helpers/journal-fixtures';
import { chargeSuccess, mintRecords, paidIntent, paymentBecomes, paymentRow, postWebhook, signedEvent, supplyTokens } from '../helpers/payment-fixtures';
import { startAppKeepingData, testDatabase } from '../helpers/test-app';
import { LEDGER_APIS } from '../helpers/sandboxes';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * Envelopes may enter only a few ledgers after signing, so one whose fate is unknown is proven dead
 * (or found) within a test; every other ledger write rides on the same rule. The ledger closes only
 * for a submission (no idle ledgers), so those few ledgers pass only when a test makes them pass:
 * an envelope a test means to send as stored is still valid when it is sent, however slowly a busy
 * machine gets there (an idle ledger every 5 s could outlast its bounds on one).
 */
const SHORT_BOUNDS = { LEDGER_TX_TIMEOUT_LEDGERS: '3' };

// Every suite here runs on both of the service's ledger adapters: Stellar RPC and Horizon.
describe.each(LEDGER_APIS)('through %s', (api) => {
  const { ledger, provider, app, startApp } = withSandboxes({ ledger: { api, idleCloseMs: 0 }, app: { env: SHORT_BOUNDS } });
  beforeEach(async () => {
    await supplyTokens(app);
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  const verify = (user: CreatedUser, reference: string) =>
    app.http.post('/api/payments/verify-payment').set(bearer(user.token)).send({ reference });

  const balanceOf = (user: CreatedUser) => ledgerBalance(ledger.url, user.ledgerPublicKey);

  describe('one reference, many settlers', () => {
    it('mints exactly once for 50 concurrent verify, callback and webhook calls on one paid reference', async () => {
      const user = await createUser(app);
      const intent = await paidIntent(app, user, 500);
      const { body, signature } = signedEvent(chargeSuccess(intent.reference, 50_000), provider.secretKey);
      // Pass-through observer: the webhook inbox settles after answering, so the test waits for every
      // settlement, and sees what each one did.
      const settlements: Promise<string>[] = [];
      const settle = app.container.payments.settle.bind(app.container.payments);
      jest.spyOn(app.container.payments, 'settle').mockImplementation((reference) => {
        const running = settle(reference);
        settlements.push(running.then((outcome) => (outcome.kind === 'minted' || outcome.kind === 'verified' ? 'consumed' : outcome.kind), () => 'threw'));
        return running;
      });

      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => {
          if (i % 3 === 0) return verify(user, intent.reference).then(outcomeOfVerify);
          if (i % 3 === 1) return app.http.get('/api/payments/callback').query({ trxref: intent.reference, reference: intent.reference }).then(outcomeOfPage);
          return postWebhook(app, body, signature).then((r) => (r.status === 200 ? 'received' : `webhook ${r.status}`));
        }),
      );
      // 34 verify and callback calls, and one settlement of the webhook event however often it was delivered.
      await eventually(async () => (settlements.length === 35 ? true : undefined), 'all 35 settlements to start');

      // Exactly one settlement consumes the reference; every other finds it processed.
      expect(countBy(await Promise.all(settlements))).toEqual({ consumed: 1, already_processed: 34 });
      // Whose settlement that is, is a genuine race: a verify or callback caller's (then that caller
      // alone is told it succeeded) or the webhook's, settled after its answer (then no caller is).
      const told = countBy(answers).success ?? 0;
      expect(countBy(answers)).toEqual({ received: 16, already: 34 - told, ...(told === 1 ? { success: 1 } : {}) });
      await paymentBecomes(app, intent.reference, 'minted');
      expect(await balanceOf(user)).toBe('500.0000000');
      expect(await mintRecords(app, user.userId)).toHaveLength(1);
      const minted = await paymentRow(app, intent.reference);
      expect((await allEnvelopes(app)).filter((e) => e.hash === minted!.mintTxHash)).toEqual([expect.objectContaining({ status: 'confirmed' })]);
    });

    it('mints exactly once when two processes on one database verify the same reference at once', async () => {
      const user = await createUser(app);
      const intent = await paidIntent(app, user, 500);
      const secondProcess = await startAppKeepingData({ ...ledger.env, ...provider.env });
      try {
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 === 0 ? app : secondProcess).http.post('/api/payments/verify-payment').set(bearer(user.token)).send({ reference: intent.reference }),
          ),
        );

        const bodies = answers.map((a) => a.body);
        expect(bodies.filter((b) => b.success === true)).toEqual([{ success: true, amount: 500, userId: expect.any(String) }]);
        expect(bodies.filter((b) => b.success !== true)).toEqual(Array(19).fill({ success: false, message: 'Payment already processed' }));
        await paymentBecomes(app, intent.reference, 'minted');
        expect(await balanceOf(user)).toBe('500.0000000');
        expect(await mintRecords(app, user.userId)).toHaveLength(1);
      } finally {
        await secondProcess.close();
      }
    });
  });

  type Outcome = 'success' | 'already' | string;

  function outcomeOfVerify(res: { status: number; body: { success?: boolean; message?: string } }): Outcome {
    if (res.status === 200 && res.body.success === true) return 'success';
    if (res.status === 200 && res.body.message === 'Payment already processed') return 'already';
    return `verify ${res.status} ${JSON.stringify(res.body)}`;
  }

  function outcomeOfPage(res: { status: number; text: string }): Outcome {
    if (res.status === 200 && res.text.includes('id="settled-earlier"')) return 'already';
    if (res.status === 200 && res.text.includes('<h1>Payment successful</h1>')) return 'success';
    return `callback ${res.status}`;
  }

  function countBy(values: string[]): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
    return counts;
  }

  describe('crash windows finished by the reconciler', () => {
    /** A verified payment whose mint envelope was stored, then the process died around sending it. */
    async function crashedMint(user: CreatedUser, naira: number, when: 'before-send' | 'after-send') {
      const intent = await paidIntent(app, user, naira);
      const crash = crashAroundSending(app.container, when);
      const answer = await verify(user, intent.reference);
      crash.restore();
      // The buyer was told it worked: the reference is consumed and its mint is in the journal.
      expect(answer.body).toMatchObject({ success: true, amount: naira });
      expect(crash.crashed).toHaveLength(1);
      expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'minting' });
      expect(await balanceOf(user)).toBe(when === 'before-send' ? '0.0000000' : `${naira}.0000000`);
      return { reference: intent.reference, stored: crash.crashed[0]! };
    }

    it('leaves an envelope to the process that signed it until its lease passes, then sends it once', async () => {
      const user = await createUser(app);
      const { reference, stored } = await crashedMint(user, 300, 'before-send');

      await app.container.reconciler.drain();
      expect(await balanceOf(user)).toBe('0.0000000'); // still leased to the (dead) process that signed it

      await expireLeases(app);
      await app.container.reconciler.drain();

      expect(await balanceOf(user)).toBe('300.0000000');
      expect(await paymentRow(app, reference)).toMatchObject({ status: 'minted', mintTxHash: stored.hash });
      expect((await mintRecords(app, user.userId)).map((r) => [r.ledgerTransactionId, r.status])).toEqual([[stored.hash, 'confirmed']]);

      await expireLeases(app);
      await app.container.reconciler.drain();
      expect(await balanceOf(user)).toBe('300.0000000');
      expect(await mintRecords(app, user.userId)).toHaveLength(1);
    });

    it('confirms by hash an envelope the ledger applied while the database never heard, without minting again', async () => {
      const user = await createUser(app);
      const { reference, stored } = await crashedMint(user, 300, 'after-send');

      await expireLeases(app);
      await app.container.reconciler.drain();

      expect(await balanceOf(user)).toBe('300.0000000');
      expect(await paymentRow(app, reference)).toMatchObject({ status: 'minted', mintTxHash: stored.hash });
      expect((await mintRecords(app, user.userId)).map((r) => r.ledgerTransactionId)).toEqual([stored.hash]);
    });

    it('is finished by a fresh process on the same database, which reconciles at start', async () => {
      const user = await createUser(app);
      const { reference, stored } = await crashedMint(user, 300, 'before-send');
      await app.close();
      await expireLeases(await testDatabase());

      await startApp({}, { reset: false });
      app.container.start();

      await paymentBecomes(app, reference, 'minted');
      expect(await balanceOf(user)).toBe('300.0000000');
      expect((await mintRecords(app, user.userId)).map((r) => r.ledgerTransactionId)).toEqual([stored.hash]);
    });

    it('mints anew, once, only when the stored envelope provably never applies (one answer shows the ledger past its last ledger without it)', async () => {
      const user = await createUser(app);
      const other = await createUser(app);
      const { reference, stored } = await crashedMint(user, 300, 'before-send');
      // The stored envelope was marked sent but never reached the ledger; then other mints close
      // ledgers past its last one, so it can never apply.
      await app.container.ledgerModule.repository.markSubmitted(stored.envelopeId);
      const admin = await adminToken(app);
      // One after the other: each closes a ledger of its own.
      for (let i = 0; i < 6; i++) {
        await app.http.post('/api/payments/mint-tokens').set(bearer(admin)).set('Idempotency-Key', `spend-${i}`).send({ userId: other.userId, amount: 1 }).expect(200);
      }

      await expireLeases(app);
      await app.container.reconciler.drain();

      expect(await balanceOf(user)).toBe('300.0000000');
      const row = await paymentRow(app, reference);
      expect(row).toMatchObject({ status: 'minted' });
      expect(row!.mintTxHash).not.toBe(stored.hash);
      expect((await mintRecords(app, user.userId)).map((r) => r.ledgerTransactionId)).toEqual([row!.mintTxHash]);
      const envelopes = await allEnvelopes(app);
      expect(envelopes.find((e) => e.hash === stored.hash)).toMatchObject({ status: 'failed', failure: expect.stringMatching(/^never_applies/) });
      expect(envelopes.find((e) => e.hash === row!.mintTxHash)?.status).toBe('confirmed');
    });

    it('mints a payment consumed but never signed once its lease passed, and not before', async () => {
      // verify-payment waits for a mint that never starts: a short wait, not the default 10 s.
      await startApp({}, { mintWaitMs: 300 });
      await supplyTokens(app);
      const user = await createUser(app);
      const intent = await paidIntent(app, user, 300);
      // The process dies after committing the entry and before signing any envelope for it.
      const submitter = (await app.container.ledgerModule.bootstrap.ready()).distribution;
      const submit = submitter.submit.bind(submitter);
      submitter.submit = () => new Promise(() => undefined);
      await verify(user, intent.reference).expect(200);
      submitter.submit = submit;
      expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'minting', mintTxHash: null });

      await app.container.reconciler.drain();
      // Still the live path's while its lease lasts (it may be minting it in another process): nothing
      // on the ledger yet, whatever the payment row says.
      expect(await balanceOf(user)).toBe('0.0000000');
      expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'minting' });

      await expireLeases(app);
      await app.container.reconciler.drain();

      expect(await paymentRow(app, intent.reference)).toMatchObject({ status: 'minted' });
      expect(await balanceOf(user)).toBe('300.0000000');
      expect(await mintRecords(app, user.userId)).toHaveLength(1);
    });
  });

  describe('a buyer deleted after paying', () => {
    it('still gets the tokens, on the archived wallet, when the provider redirect arrives', async () => {
      const user = await createUser(app);
      // The only wallet left once the buyer's is archived: the mint must never take it for the buyer's.
      const bystander = await createUser(app);
      const intent = await paidIntent(app, user, 500);
      await app.http.delete(`/api/admin/users/${user.userId}`).set(bearer(await adminToken(app))).expect(200);

      const page = await app.http.get(`/api/payments/callback?reference=${intent.reference}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Payment successful');
      expect((await paymentBecomes(app, intent.reference, 'minted')).destinationPublicKey).toBe(user.ledgerPublicKey);
      // Exactly the purchase, once: a second mint to the archived wallet would show on the ledger.
      expect(await balanceOf(user)).toBe('500.0000000');
      expect(await mintRecords(app, user.userId)).toHaveLength(1);
      expect(await balanceOf(bystander)).toBe('0.0000000');
    });
  });
});
