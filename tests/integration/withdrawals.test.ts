import { accountNameFor, sandboxControlPaths } from '@wallet/paystack-sandbox';
import { sql } from 'drizzle-orm';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { answer, forwardTo, startFakeServer } from '../helpers/fake-server';
import { mintedPurchase, postWebhook, refundAtProvider, signedEvent, supplyTokens } from '../helpers/payment-fixtures';
import { fundedUser, ledgerBalance } from '../helpers/ledger-fixtures';
import type { RunningProvider } from '../helpers/sandboxes';
import type { TestApp } from '../helpers/test-app';
import { providerControl, relayedProvider } from '../helpers/provider-relay';
import { withSandboxes } from '../helpers/with-sandboxes';
import {
  addPayoutAccount,
  FAST_CASH_OUT,
  providerTransfersOf,
  randomAccountNumber,
  setProviderBalance,
  transfersToAccount,
  withdraw,
  withdrawalBecomes,
  withdrawalRow,
} from '../helpers/withdrawal-fixtures';

/**
 * Cash-out end to end (CONTRACT 10, src/domain/withdrawal-lifecycle.ts): the real ledger sandbox
 * takes the tokens, the real provider sandbox pays (or fails, reverses, waits for an OTP or for its
 * float, answers 504 after creating the transfer) and sends its signed webhooks over HTTP. Each
 * test ends with the exact wallet balance, the provider's transfers under the withdrawal's one
 * reference, the journal's debit and refund entries, and a clean audit.
 */

const relay = relayedProvider();
// One app for the file's start, replaced by each test's own: the apps log warnings, which the fault tests read.
const { ledger, startApp } = withSandboxes({ app: { scope: 'file', logLevel: 'warn' } });

interface CashOut {
  app: TestApp;
  provider: RunningProvider;
  user: CreatedUser;
  account: string;
}

/** A started app, a user holding `tokens`, one payout account, and the provider's balance at `floatKobo`. */
async function cashOut(tokens = 1000, floatKobo = 100_000_00, env: Record<string, string> = {}): Promise<CashOut> {
  const provider = relay.provider();
  const app = await startApp({ ...FAST_CASH_OUT, ...provider.env, ...env });
  relay.deliverTo(app);
  app.container.start();
  await setProviderBalance(provider, floatKobo);
  const user = await fundedUser(app, tokens);
  const account = await addPayoutAccount(app, user, randomAccountNumber());
  return { app, provider, user, account };
}

/** Every transfer the provider holds to the withdrawal's account, under any reference (a second reference would be a second payout). */
async function transfersToAccountOf(app: TestApp, provider: RunningProvider, withdrawalId: string) {
  const [row] = await queryRows<{ account_number: string }>(app.container.database, sql`select account_number from withdrawals where id = ${withdrawalId}`);
  return transfersToAccount(provider, row!.account_number);
}

const balanceOf = (user: CreatedUser) => ledgerBalance(ledger.url, user.ledgerPublicKey);

/** The withdrawal's journal entries of each kind, by status. */
async function entriesOf(app: TestApp, withdrawalId: string) {
  return queryRows<{ kind: string; status: string; amount_stroops: string }>(
    app.container.database,
    sql`select kind, status, amount_stroops::text from ledger_entries where withdrawal_id = ${withdrawalId} order by created_at`,
  );
}

async function expectCleanAudit(app: TestApp) {
  const report = await app.container.audit();
  expect(report.discrepancies).toEqual([]);
}

/** Waits until the journal holds nothing open (every debit and refund settled). */
async function journalSettled(app: TestApp) {
  await eventually(async () => {
    const [open] = await queryRows<{ n: number }>(app.container.database, sql`select count(*)::int as n from ledger_entries where status in ('pending', 'submitted')`);
    return open!.n === 0 ? true : undefined;
  }, 'the journal to settle');
}

describe('cash-out', () => {
  it('pays a withdrawal once: the tokens leave the wallet first, then one provider transfer of their Naira', async () => {
    const { app, provider, user, account } = await cashOut(1000);
    const res = await withdraw(app, user, { amount: '250.5', payoutAccountId: account });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ amount: '250.5000000', naira: '250.50', payoutAccountId: account });
    const id = res.body.withdrawalId as string;

    const paid = await withdrawalBecomes(app, id, 'paid');
    expect(await balanceOf(user)).toBe('749.5000000');
    const transfers = await providerTransfersOf(provider, paid.reference);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]).toMatchObject({ amount: 25050, status: 'success' });
    expect(await entriesOf(app, id)).toEqual([{ kind: 'withdrawal', status: 'confirmed', amount_stroops: '2505000000' }]);

    const mine = await app.http.get(`/api/payments/withdrawals/${id}`).set(bearer(user.token)).expect(200);
    expect(mine.body).toMatchObject({ withdrawalId: id, status: 'paid', amount: '250.5000000', naira: '250.50' });
    const list = await app.http.get('/api/payments/withdrawals').set(bearer(user.token)).expect(200);
    expect(list.headers['x-total-count']).toBe('1');
    await journalSettled(app);
    await expectCleanAudit(app);
  });

  it('answers a retry with the same Idempotency-Key with the first withdrawal, and refuses the key with another body', async () => {
    const { app, user, account } = await cashOut(100);
    const first = await withdraw(app, user, { amount: 10, payoutAccountId: account }, 'cash-out-1');
    const again = await withdraw(app, user, { amount: 10, payoutAccountId: account }, 'cash-out-1');
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.withdrawalId).toBe(first.body.withdrawalId);
    const other = await withdraw(app, user, { amount: 11, payoutAccountId: account }, 'cash-out-1');
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ success: false, message: expect.stringMatching(/Idempotency-Key/) });
    await withdrawalBecomes(app, first.body.withdrawalId, 'paid');
    expect(await balanceOf(user)).toBe('90.0000000');
  });

  it('refuses bad withdrawals with a 400 in the payments shape and moves nothing', async () => {
    const { app, provider, user, account } = await cashOut(100, 100_000_00, { TOKENS_PER_NAIRA: '3', WITHDRAWAL_MIN_NAIRA: '5', WITHDRAWAL_DAILY_LIMIT_NAIRA: '30' });
    const refused = [
      await withdraw(app, user, { amount: 200, payoutAccountId: account }), // more than the wallet holds
      await withdraw(app, user, { amount: 10, payoutAccountId: account }), // 3.333... Naira: not whole kobo
      await withdraw(app, user, { amount: 12, payoutAccountId: account }), // 4 Naira: under the minimum
      await withdraw(app, user, { amount: 93, payoutAccountId: account }), // 31 Naira: over the daily limit
      await withdraw(app, user, { amount: 15, payoutAccountId: account }, null), // no Idempotency-Key
      await withdraw(app, user, { amount: -1, payoutAccountId: account }),
      await withdraw(app, user, { amount: 15, payoutAccountId: account, extra: 1 }),
    ];
    for (const res of refused) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual(expect.objectContaining({ success: false, message: expect.any(String) }));
    }
    expect((await withdraw(app, user, { amount: 15, payoutAccountId: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
    expect(await balanceOf(user)).toBe('100.0000000');
    const [count] = await queryRows<{ n: number }>(app.container.database, sql`select count(*)::int as n from withdrawals`);
    expect(count!.n).toBe(0);
    expect(await providerTransfersOf(provider, 'none')).toEqual([]);
  });

  it('refuses to cash out while the user owes tokens a refund could not take back, and moves nothing', async () => {
    const { app, provider, user, account } = await cashOut(0);
    await supplyTokens(app);
    const friend = await createUser(app);
    const reference = await mintedPurchase(app, user, 100);
    // The buyer spends the purchase, then the merchant refunds it: nothing to claw back, 100 tokens owed.
    await app.http.post('/api/ledger/transfer').set(bearer(user.token)).send({ receiverPublicKey: friend.ledgerPublicKey, amount: 100 }).expect(200);
    await refundAtProvider(provider, reference);
    await eventually(async () => ((await app.container.reversalRepo.owedBy(user.userId)) === 1_000_000_000n ? true : undefined), 'the debt to be recorded');
    await app.http.post('/api/ledger/transfer').set(bearer(friend.token)).send({ receiverPublicKey: user.ledgerPublicKey, amount: 50 }).expect(200);

    const res = await withdraw(app, user, { amount: 10, payoutAccountId: account });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ success: false, message: expect.stringMatching(/owe 100\.0000000 WLT/) });
    expect(await balanceOf(user)).toBe('50.0000000');
    const [count] = await queryRows<{ n: number }>(app.container.database, sql`select count(*)::int as n from withdrawals`);
    expect(count!.n).toBe(0);
  });

  it('lets only one of two concurrent withdrawals pass a daily limit that covers one', async () => {
    const { app, user, account } = await cashOut(1000, 100_000_00, { WITHDRAWAL_DAILY_LIMIT_NAIRA: '150' });
    const [a, b] = await Promise.all([withdraw(app, user, { amount: 100, payoutAccountId: account }), withdraw(app, user, { amount: 100, payoutAccountId: account })]);
    expect([a.status, b.status].sort()).toEqual([202, 400]);
    const passed = a.status === 202 ? a : b;
    const refused = a.status === 202 ? b : a;
    expect(refused.body.message).toMatch(/daily withdrawal limit/);
    await withdrawalBecomes(app, passed.body.withdrawalId, 'paid');
    expect(await balanceOf(user)).toBe('900.0000000');
  });

  it('gives the tokens back once when the provider fails the transfer', async () => {
    const { app, provider, user, account } = await cashOut(100);
    await providerControl(provider, sandboxControlPaths.nextTransfer(), { outcome: 'failed' });
    const res = await withdraw(app, user, { amount: 40, payoutAccountId: account });
    const refunded = await withdrawalBecomes(app, res.body.withdrawalId, 'refunded');
    expect(refunded.providerStatus).toBe('failed');
    expect(await balanceOf(user)).toBe('100.0000000');
    await journalSettled(app);
    expect((await entriesOf(app, refunded.id)).map((e) => `${e.kind}:${e.status}`)).toEqual(['withdrawal:confirmed', 'withdrawal_refund:confirmed']);
    await expectCleanAudit(app);
  });

  it('gives the tokens back once when a paid transfer is reversed later, however often the events come', async () => {
    const { app, provider, user, account } = await cashOut(100);
    const res = await withdraw(app, user, { amount: 40, payoutAccountId: account });
    const paid = await withdrawalBecomes(app, res.body.withdrawalId, 'paid');
    expect(await balanceOf(user)).toBe('60.0000000');
    // Days later, the bank sends the money back to the provider: transfer.reversed.
    await providerControl(provider, sandboxControlPaths.transferStatus(paid.reference), { status: 'reversed' });
    await withdrawalBecomes(app, paid.id, 'refunded');
    await journalSettled(app);
    // Asking again (a redelivery, the sweep, another event) gives nothing back twice.
    expect(await app.container.withdrawals.settleTransfer(paid.reference)).toBe('refunded');
    await app.container.withdrawals.run();
    expect(await balanceOf(user)).toBe('100.0000000');
    expect((await entriesOf(app, paid.id)).filter((e) => e.kind === 'withdrawal_refund')).toHaveLength(1);
    await expectCleanAudit(app);
  });

  it('keeps asking about a pending transfer with a growing delay until the provider settles it, then pays once', async () => {
    const { app, provider, user, account } = await cashOut(100);
    await providerControl(provider, sandboxControlPaths.nextTransfer(), { outcome: 'pending' });
    const res = await withdraw(app, user, { amount: 20, payoutAccountId: account });
    const processing = await withdrawalBecomes(app, res.body.withdrawalId, 'processing');
    // Each look that finds it still pending counts an attempt (the delay doubles with them): asking again is no move.
    await eventually(async () => ((await withdrawalRow(app, processing.id))!.attempts >= 3 ? true : undefined), 'the sweep to look at it three times');
    expect((await withdrawalRow(app, processing.id))!.status).toBe('processing');
    await providerControl(provider, sandboxControlPaths.transferStatus(processing.reference), { status: 'success' });
    await withdrawalBecomes(app, processing.id, 'paid');
    expect(await providerTransfersOf(provider, processing.reference)).toHaveLength(1);
    expect(await balanceOf(user)).toBe('80.0000000');
  });

  it('waits for an admin to give the OTP, and gives the tokens back when nobody does (abandoned)', async () => {
    const { app, provider, user, account } = await cashOut(100);
    const admin = await adminToken(app);
    await providerControl(provider, sandboxControlPaths.transferOtp(), { enabled: true });
    try {
      const finalized = await withdraw(app, user, { amount: 10, payoutAccountId: account });
      const abandoned = await withdraw(app, user, { amount: 20, payoutAccountId: account });
      await withdrawalBecomes(app, finalized.body.withdrawalId, 'awaiting_otp');
      const waiting = await withdrawalBecomes(app, abandoned.body.withdrawalId, 'awaiting_otp');

      const wrong = await app.http.post(`/api/admin/withdrawals/${finalized.body.withdrawalId}/finalize`).set(bearer(admin)).send({ otp: '000000' });
      expect(wrong.status).toBe(400);
      const right = await app.http.post(`/api/admin/withdrawals/${finalized.body.withdrawalId}/finalize`).set(bearer(admin)).send({ otp: '123456' });
      expect(right.status).toBe(200);
      await withdrawalBecomes(app, finalized.body.withdrawalId, 'paid');

      // 30 minutes pass without the OTP: the provider abandons the transfer (no webhook); the sweep finds out.
      await providerControl(provider, sandboxControlPaths.transferStatus(waiting.reference), { status: 'abandoned' });
      await withdrawalBecomes(app, waiting.id, 'refunded');
      expect(await balanceOf(user)).toBe('90.0000000');
      await journalSettled(app);
      await expectCleanAudit(app);
    } finally {
      await providerControl(provider, sandboxControlPaths.transferOtp(), { enabled: false });
    }
  });

  it('waits for the float when the provider balance is not enough, then pays once under the same reference', async () => {
    const { app, provider, user, account } = await cashOut(100, 0);
    const res = await withdraw(app, user, { amount: 30, payoutAccountId: account });
    const waiting = await withdrawalBecomes(app, res.body.withdrawalId, 'waiting_float');
    expect(await providerTransfersOf(provider, waiting.reference)).toEqual([]);
    // Asked again under the same reference while it waits: it stays in waiting_float since it first came
    // there (the gauge's age keeps growing) and its looks keep counting (the delay between them grows).
    await eventually(async () => ((await withdrawalRow(app, waiting.id))!.transferCalls >= 3 ? true : undefined), 'three calls refused for the float');
    const still = (await withdrawalRow(app, waiting.id))!;
    expect(still).toMatchObject({ status: 'waiting_float', statusSince: waiting.statusSince, reference: waiting.reference });
    expect(still.attempts).toBeGreaterThanOrEqual(2);
    const admin = await adminToken(app);
    const listed = await app.http.get('/api/admin/withdrawals?status=waiting_float').set(bearer(admin)).expect(200);
    expect(listed.body).toEqual([expect.objectContaining({ withdrawalId: waiting.id, amount: '30.0000000', naira: '30.00', reference: waiting.reference })]);
    const metrics = await app.http.get('/metrics');
    expect(metrics.text).toMatch(/withdrawals_waiting_oldest_seconds\{status="waiting_float"\} \d/);

    await setProviderBalance(provider, 100_00);
    const paid = await withdrawalBecomes(app, waiting.id, 'paid');
    expect(paid.transferCalls).toBeGreaterThan(3);
    expect(paid.reason).toBeNull();
    expect(await providerTransfersOf(provider, waiting.reference)).toHaveLength(1);
    expect(await balanceOf(user)).toBe('70.0000000');
    await expectCleanAudit(app);
  });

  it("lets an admin cancel a withdrawal waiting for the float: its tokens come back once, and a paid one can't be cancelled", async () => {
    const { app, provider, user, account } = await cashOut(100, 0);
    const admin = await adminToken(app);
    const res = await withdraw(app, user, { amount: 30, payoutAccountId: account });
    const waiting = await withdrawalBecomes(app, res.body.withdrawalId, 'waiting_float');
    const cancel = await app.http.post(`/api/admin/withdrawals/${waiting.id}/cancel`).set(bearer(admin)).send();
    expect(cancel.status).toBe(200);
    await withdrawalBecomes(app, waiting.id, 'refunded');
    expect((await app.http.post(`/api/admin/withdrawals/${waiting.id}/cancel`).set(bearer(admin)).send()).status).toBe(409);
    await setProviderBalance(provider, 100_000_00);
    const paid = await withdraw(app, user, { amount: 10, payoutAccountId: account });
    await withdrawalBecomes(app, paid.body.withdrawalId, 'paid');
    expect((await app.http.post(`/api/admin/withdrawals/${paid.body.withdrawalId}/cancel`).set(bearer(admin)).send()).status).toBe(409);
    await app.container.withdrawals.run();
    expect(await providerTransfersOf(provider, waiting.reference)).toEqual([]);
    expect(await balanceOf(user)).toBe('90.0000000');
    await journalSettled(app);
    await expectCleanAudit(app);
  });

  it.each(['504-after-create', 'reset-after-create'])('pays once when the transfer call answers %s after creating it: verified, never asked for under a new reference', async (fault) => {
    const { app, provider, user, account } = await cashOut(100);
    await providerControl(provider, sandboxControlPaths.transferFault(), { fault });
    const res = await withdraw(app, user, { amount: 25, payoutAccountId: account });
    const paid = await withdrawalBecomes(app, res.body.withdrawalId, 'paid');
    // The call's answer was unclear (the fault was this call's), and verify found the transfer: no second call.
    expect(app.logs.some((line) => line.includes('transfer answer unclear'))).toBe(true);
    expect(paid.transferCalls).toBe(1);
    expect(await transfersToAccountOf(app, provider, paid.id)).toHaveLength(1);
    expect(await balanceOf(user)).toBe('75.0000000');
    await expectCleanAudit(app);
  });

  it('pays once when the transfer call answers 500 before creating it: asked again under the same reference', async () => {
    const { app, provider, user, account } = await cashOut(100);
    await providerControl(provider, sandboxControlPaths.transferFault(), { fault: '500-before' });
    const res = await withdraw(app, user, { amount: 25, payoutAccountId: account });
    const paid = await withdrawalBecomes(app, res.body.withdrawalId, 'paid');
    expect(paid.transferCalls).toBe(2);
    const transfers = await transfersToAccountOf(app, provider, paid.id);
    expect(transfers.map((t) => t.reference)).toEqual([paid.reference]);
    expect(await balanceOf(user)).toBe('75.0000000');
    await expectCleanAudit(app);
  });

  it('settles from the webhook when it comes before the API answers, and the late answer and a redelivery change nothing', async () => {
    const provider = relay.provider();
    // The provider's answer to POST /transfer is held until the webhook has settled the withdrawal.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const proxy = await startFakeServer((req, res, body) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', authorization: req.headers.authorization ?? '' };
      void fetch(`${provider.url}${req.url}`, { method: req.method, headers, body: body.length > 0 ? body : undefined }).then(async (answer) => {
        const bytes = Buffer.from(await answer.arrayBuffer());
        if (req.method === 'POST' && req.url === '/transfer') await released;
        if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'application/json' }).end(bytes);
      });
    });
    try {
      const app = await startApp({ ...FAST_CASH_OUT, ...provider.env, PAYSTACK_BASE_URL: proxy.url, PAYSTACK_TIMEOUT_MS: '120000' });
      relay.deliverTo(app);
      app.container.start();
      await setProviderBalance(provider, 100_000_00);
      const user = await fundedUser(app, 100);
      const account = await addPayoutAccount(app, user, randomAccountNumber());
      const res = await withdraw(app, user, { amount: 5, payoutAccountId: account });
      const paid = await withdrawalBecomes(app, res.body.withdrawalId, 'paid');
      const transferCall = proxy.requests.find((r) => r.method === 'POST' && r.url === '/transfer');
      expect(transferCall?.fate).toBe('open');
      const events = await queryRows<{ event: string; status: string; outcome: string }>(app.container.database, sql`select event, status, outcome from webhook_events where reference = ${paid.reference}`);
      expect(events).toEqual([{ event: 'transfer.success', status: 'done', outcome: 'withdrawal paid' }]);

      release();
      await eventually(async () => (transferCall!.fate === 'answered' ? true : undefined), 'the held answer to be delivered');
      await app.container.withdrawals.run();
      // The provider delivers the same event again: one row per provider event, nothing moves twice.
      const [transfer] = await providerTransfersOf(provider, paid.reference);
      const event = signedEvent({ event: 'transfer.success', data: transfer }, provider.secretKey);
      for (let i = 0; i < 2; i += 1) expect((await postWebhook(app, event.body, event.signature)).status).toBe(200);
      await app.container.webhookInbox.run();
      const [row] = await queryRows<{ status: string; transfer_calls: number }>(app.container.database, sql`select status, transfer_calls from withdrawals where id = ${paid.id}`);
      expect(row).toEqual({ status: 'paid', transfer_calls: 1 });
      expect(await transfersToAccountOf(app, provider, paid.id)).toHaveLength(1);
      expect(await balanceOf(user)).toBe('95.0000000');
      await expectCleanAudit(app);
    } finally {
      release();
      await proxy.close();
    }
  });
});

describe('payout accounts', () => {
  it('lists the banks, resolves an account by the bank\'s name for it, adds it once, and refuses what does not resolve', async () => {
    const { app, user } = await cashOut(0);
    const banks = await app.http.get('/api/payments/banks').set(bearer(user.token)).expect(200);
    expect(banks.body).toEqual(expect.arrayContaining([{ name: 'Guaranty Trust Bank', code: '058' }]));
    const number = randomAccountNumber();
    const added = await app.http.post('/api/payments/payout-accounts').set(bearer(user.token)).send({ bankCode: '044', accountNumber: number }).expect(201);
    expect(added.body).toEqual({ payoutAccountId: expect.any(String), bankName: 'Access Bank', bankCode: '044', accountNumber: number, accountName: accountNameFor(number, '044'), createdAt: expect.any(String) });
    const twice = await app.http.post('/api/payments/payout-accounts').set(bearer(user.token)).send({ bankCode: '044', accountNumber: number }).expect(201);
    expect(twice.body.payoutAccountId).toBe(added.body.payoutAccountId);
    const listed = await app.http.get('/api/payments/payout-accounts').set(bearer(user.token)).expect(200);
    expect(listed.body.map((a: { payoutAccountId: string }) => a.payoutAccountId)).toContain(added.body.payoutAccountId);
    expect(listed.body).toHaveLength(2);

    for (const body of [{ bankCode: '999', accountNumber: number }, { bankCode: '058', accountNumber: '12345' }, { bankCode: '058' }, { bankCode: '058', accountNumber: number, name: 'x' }]) {
      const refused = await app.http.post('/api/payments/payout-accounts').set(bearer(user.token)).send(body);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual(expect.objectContaining({ success: false, message: expect.any(String) }));
    }
    const other = await createUser(app);
    expect((await app.http.delete(`/api/payments/payout-accounts/${added.body.payoutAccountId}`).set(bearer(other.token))).status).toBe(404);
    const removed = await app.http.delete(`/api/payments/payout-accounts/${added.body.payoutAccountId}`).set(bearer(user.token));
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true, message: 'Payout account removed' });
    expect((await app.http.delete(`/api/payments/payout-accounts/${added.body.payoutAccountId}`).set(bearer(user.token))).status).toBe(404);
    expect((await app.http.get('/api/payments/payout-accounts').set(bearer(user.token)).expect(200)).body).toHaveLength(1);
    const toRemoved = await withdraw(app, user, { amount: 1, payoutAccountId: added.body.payoutAccountId });
    expect(toRemoved.status).toBe(404);
  });

  it("refuses an account the bank cannot resolve with a 400, storing nothing and registering no recipient", async () => {
    const provider = relay.provider();
    // The provider as it answers an account number its bank does not know.
    const proxy = await startFakeServer((req, res, body) =>
      req.url?.startsWith('/bank/resolve')
        ? answer(422, JSON.stringify({ status: false, message: 'Could not resolve account name. Check parameters or try again.' }))(req, res, body)
        : forwardTo(provider.url)(req, res, body),
    );
    try {
      const app = await startApp({ ...FAST_CASH_OUT, ...provider.env, PAYSTACK_BASE_URL: proxy.url });
      const user = await createUser(app);
      const res = await app.http.post('/api/payments/payout-accounts').set(bearer(user.token)).send({ bankCode: '058', accountNumber: randomAccountNumber() });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, message: 'The bank could not resolve this account number' });
      expect(proxy.requests.filter((r) => r.url.startsWith('/transferrecipient'))).toEqual([]);
      const [count] = await queryRows<{ n: number }>(app.container.database, sql`select count(*)::int as n from payout_accounts`);
      expect(count!.n).toBe(0);
    } finally {
      await proxy.close();
    }
  });
});
