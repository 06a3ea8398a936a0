import type { ProviderTransfer } from '../../src/clients/paystack.client';
import type { EntryRow } from '../../src/db/repositories/journal.repository';
import type { WithdrawalRow } from '../../src/db/repositories/withdrawal.repository';
import type { WithdrawalState } from '../../src/domain/withdrawal-lifecycle';
import { standardKinds } from '../../src/ledger/kinds/registry';
import { auditWithdrawals } from '../../src/ledger/withdrawal-audit';

// The withdrawal leg of the ledger audit is pure: rows in, lines out. Each test hand-builds the
// three views (the withdrawals, the journal's entries, the provider's transfers) of a few
// withdrawals and reads the lines the audit writes of them.

const kinds = standardKinds();
const DEBIT_KINDS = kinds.claiming('withdrawal debit');
const REFUND_KINDS = kinds.claiming('withdrawal refund');
const [DEBIT_KIND] = [...DEBIT_KINDS];
const [REFUND_KIND] = [...REFUND_KINDS];
const [MINT_KIND] = [...kinds.claiming('payment')];

const NOW = new Date('2025-06-01T12:00:00.000Z');
const GRACE_MS = 15 * 60_000;
const WALLET = 'GWALLETAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const OTHER_WALLET = 'GWALLETBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
const DISTRIBUTION = 'GDISTRIBUTIONCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC';

const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);

let made = 0;
const nextId = () => `00000000-0000-4000-8000-${String(++made).padStart(12, '0')}`;

/** A withdrawal of 25 tokens for ₦2,500.00, made two hours ago and in its state for an hour. */
function withdrawal(status: WithdrawalState, overrides: Partial<WithdrawalRow> = {}): WithdrawalRow {
  const id = overrides.id ?? nextId();
  return {
    id,
    userId: '10000000-0000-4000-8000-000000000001',
    payoutAccountId: '20000000-0000-4000-8000-000000000001',
    recipientCode: 'RCP_ada',
    bankName: 'Guaranty Trust Bank',
    accountNumber: '0123456789',
    accountName: 'ADA LOVELACE',
    walletPublicKey: WALLET,
    amountStroops: 250_000_000n,
    nairaKobo: 250_000n,
    reference: `wdl-${id}`,
    idempotencyKey: `key-${id}`,
    requestHash: 'hash',
    status,
    transferCode: null,
    providerStatus: null,
    transferCalls: 0,
    cleanRefusals: 0,
    reason: null,
    nextCheckAt: minutesAgo(60),
    attempts: 0,
    paidAt: null,
    createdAt: minutesAgo(120),
    updatedAt: minutesAgo(60),
    statusSince: minutesAgo(60),
    ...overrides,
  };
}

function entry(kind: string, overrides: Partial<EntryRow>): EntryRow {
  const id = nextId();
  return {
    id,
    kind: kind as EntryRow['kind'],
    status: 'confirmed',
    envelopeId: nextId(),
    ledgerTransactionId: `tx-${id.slice(-4)}`,
    ledger: 100,
    fromPublicKey: WALLET,
    toPublicKey: DISTRIBUTION,
    amountStroops: 250_000_000n,
    assetCode: 'NGNT',
    userId: null,
    paymentReference: null,
    reversalId: null,
    withdrawalId: null,
    approvalId: null,
    failureCode: null,
    leaseUntil: minutesAgo(119),
    createdAt: minutesAgo(119),
    updatedAt: minutesAgo(119),
    ...overrides,
  };
}

/** The confirmed entry that took `w`'s tokens from its wallet. */
const debit = (w: WithdrawalRow, overrides: Partial<EntryRow> = {}) =>
  entry(DEBIT_KIND!, { fromPublicKey: w.walletPublicKey, toPublicKey: DISTRIBUTION, amountStroops: w.amountStroops, withdrawalId: w.id, ...overrides });

/** The confirmed entry that gave `w`'s tokens back to its wallet. */
const refund = (w: WithdrawalRow, overrides: Partial<EntryRow> = {}) =>
  entry(REFUND_KIND!, { fromPublicKey: DISTRIBUTION, toPublicKey: w.walletPublicKey, amountStroops: w.amountStroops, withdrawalId: w.id, ...overrides });

/** The provider's transfer under `w`'s reference, of its Naira, as the list shows it. */
function transfer(w: Pick<WithdrawalRow, 'reference' | 'nairaKobo'>, status = 'success', overrides: Partial<ProviderTransfer> & { createdAt?: Date; updatedAt?: Date } = {}): ProviderTransfer {
  const { createdAt = minutesAgo(118), updatedAt = minutesAgo(118), ...fields } = overrides;
  const amountKobo = fields.amountKobo ?? w.nairaKobo;
  const transferCode = `TRF_${nextId().slice(-6)}`;
  return {
    reference: w.reference,
    transferCode,
    amountKobo,
    status,
    reason: 'Cash-out',
    raw: { reference: w.reference, transfer_code: transferCode, amount: Number(amountKobo), status, createdAt: createdAt.toISOString(), updatedAt: updatedAt.toISOString() },
    ...fields,
  };
}

function audit(views: { withdrawals?: WithdrawalRow[]; entries?: EntryRow[]; transfers?: ProviderTransfer[] }) {
  return auditWithdrawals({
    withdrawals: views.withdrawals ?? [],
    entries: views.entries ?? [],
    debitKinds: DEBIT_KINDS,
    refundKinds: REFUND_KINDS,
    transfers: views.transfers ?? [],
    now: NOW,
    inFlightGraceMs: GRACE_MS,
  });
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The audit's line for `w` with exactly these problems (what each side says follows them). */
const lineFor = (w: WithdrawalRow, ...problems: string[]) =>
  expect.stringMatching(new RegExp(`^withdrawal ${w.id} \\(${escapeRegExp(w.reference)}\\): ${escapeRegExp(problems.join('; '))} \\(provider: `));

/** A withdrawal paid out once: its debit confirmed, its transfer `success` at the provider. */
function paidOut(overrides: Partial<WithdrawalRow> = {}) {
  const w = withdrawal('paid', overrides);
  return { w, entries: [debit(w)], transfers: [transfer(w)] };
}

/** A withdrawal whose tokens came back: its debit and its refund confirmed, the transfer `failed`. */
function refunded(overrides: Partial<WithdrawalRow> = {}) {
  const w = withdrawal('refunded', { reason: 'failed', ...overrides });
  return { w, entries: [debit(w), refund(w)], transfers: [transfer(w, 'failed')] };
}

describe('the withdrawal audit', () => {
  it('finds nothing wrong with withdrawals paid once, refunded once, or never debited, and lists those in flight', () => {
    const paid = paidOut();
    const back = refunded();
    // An admin's cancel after the debit, before any transfer call: refunded, nothing at the provider.
    const cancelledAfterDebit = withdrawal('refunded', { reason: 'cancelled by an admin' });
    const debitFailed = withdrawal('debit_failed', { reason: 'The ledger refused to take the tokens (op_underfunded)' });
    const cancelled = withdrawal('cancelled');
    const processing = withdrawal('processing', { statusSince: minutesAgo(5) });
    // Another deployment's withdrawal on the same provider account, before this database's first record.
    const elsewhere = { reference: 'wdl-90000000-0000-4000-8000-000000000009', nairaKobo: 100n };

    const report = audit({
      withdrawals: [paid.w, back.w, cancelledAfterDebit, debitFailed, cancelled, processing],
      entries: [
        ...paid.entries,
        ...back.entries,
        debit(cancelledAfterDebit),
        refund(cancelledAfterDebit),
        // A refused debit and a refused refund are no movement.
        debit(debitFailed, { status: 'failed', failureCode: 'op_underfunded' }),
        refund(back.w, { status: 'failed', failureCode: 'op_no_trust' }),
        debit(processing),
        entry(MINT_KIND!, { paymentReference: 'wlt-1', fromPublicKey: DISTRIBUTION, toPublicKey: WALLET }),
      ],
      transfers: [
        ...paid.transfers,
        ...back.transfers,
        transfer(processing, 'pending'),
        transfer(elsewhere, 'success', { createdAt: minutesAgo(600) }),
        // Another integration's payout on the account: not ours.
        transfer({ reference: 'payroll-2025-06-0001', nairaKobo: 5_000_000n }),
      ],
    });

    expect(report).toEqual({ discrepancies: [], inFlight: [`${processing.id} (processing)`] });
  });

  it('writes a line naming the withdrawal, its problems and what the provider, the database and the ledger each say', () => {
    const w = withdrawal('paid');
    const taken = debit(w);

    const report = audit({ withdrawals: [w], entries: [taken] });

    expect(report.discrepancies).toEqual([
      `withdrawal ${w.id} (${w.reference}): paid, but the provider does not know its reference (provider: no such reference; database: paid, 25.0000000 tokens for 2500.00 NGN; ledger: debit of 25.0000000 in ${taken.ledgerTransactionId})`,
    ]);
  });

  describe('every debit is paid out once or refunded once', () => {
    it('calls a paid withdrawal whose transfer the provider does not show success a discrepancy', () => {
      const failed = withdrawal('paid');
      const pending = withdrawal('paid');

      const report = audit({ withdrawals: [failed, pending], entries: [debit(failed), debit(pending)], transfers: [transfer(failed, 'failed'), transfer(pending, 'pending')] });

      expect(report.discrepancies).toEqual([lineFor(failed, 'paid, but the provider says failed'), lineFor(pending, 'paid, but the provider says pending')]);
    });

    it('waits the grace for a paid transfer the provider reversed, counted from the reversal, then calls it a discrepancy', () => {
      // Paid an hour ago; the provider reversed it five minutes ago: the webhook or the sweep brings it soon.
      const fresh = paidOut();
      fresh.transfers = [transfer(fresh.w, 'reversed', { updatedAt: minutesAgo(5) })];
      const stale = paidOut();
      stale.transfers = [transfer(stale.w, 'reversed', { updatedAt: minutesAgo(30) })];

      const report = audit({ withdrawals: [fresh.w, stale.w], entries: [...fresh.entries, ...stale.entries], transfers: [...fresh.transfers, ...stale.transfers] });

      expect(report.inFlight).toEqual([`${fresh.w.id} (paid)`]);
      expect(report.discrepancies).toEqual([lineFor(stale.w, `paid, but the provider reversed it and its tokens are not given back (since ${minutesAgo(30).toISOString()})`)]);
    });

    it('calls a refunded withdrawal without its refund, or whose transfer the provider shows success, a discrepancy', () => {
      const noRefund = withdrawal('refunded');
      const paidToo = refunded();
      paidToo.transfers = [transfer(paidToo.w, 'success')];

      const report = audit({ withdrawals: [noRefund, paidToo.w], entries: [debit(noRefund), ...paidToo.entries], transfers: paidToo.transfers });

      expect(report.discrepancies).toEqual([
        lineFor(noRefund, 'refunded, but no confirmed refund gave its tokens back'),
        lineFor(paidToo.w, 'paid at the provider and refunded on the ledger'),
      ]);
    });

    it.each(['paid', 'refunded'] as const)('calls a %s withdrawal whose tokens no debit took a discrepancy', (status) => {
      const w = withdrawal(status);
      const views = status === 'paid' ? { entries: [], transfers: [transfer(w)] } : { entries: [refund(w)], transfers: [] };

      const report = audit({ withdrawals: [w], ...views });

      expect(report.discrepancies).toEqual([lineFor(w, `${status}, but no confirmed debit took its tokens`)]);
    });

    it.each(['debit_failed', 'cancelled'] as const)('calls a %s withdrawal with a confirmed debit a discrepancy', (status) => {
      const w = withdrawal(status);

      const report = audit({ withdrawals: [w], entries: [debit(w)] });

      expect(report.discrepancies).toEqual([lineFor(w, `${status}, but a debit took its tokens`)]);
    });

    it('calls more than one confirmed debit or refund for one withdrawal a discrepancy', () => {
      const twiceTaken = paidOut();
      const twiceBack = refunded();

      const report = audit({
        withdrawals: [twiceTaken.w, twiceBack.w],
        entries: [...twiceTaken.entries, debit(twiceTaken.w), ...twiceBack.entries, refund(twiceBack.w)],
        transfers: [...twiceTaken.transfers, ...twiceBack.transfers],
      });

      expect(report.discrepancies).toEqual([lineFor(twiceTaken.w, '2 confirmed debits'), lineFor(twiceBack.w, '2 confirmed refunds')]);
    });

    it('calls a confirmed debit or refund whose withdrawal is missing a discrepancy', () => {
      const gone = withdrawal('paid');
      const lostDebit = debit(gone);
      const lostRefund = refund(gone);
      const unnamed = debit(gone, { withdrawalId: null });

      const report = audit({ entries: [lostDebit, lostRefund, unnamed] });

      expect(report.discrepancies).toEqual([
        `withdrawal debit ${lostDebit.id}: confirmed for withdrawal ${gone.id}, which does not exist (25.0000000 from ${WALLET} to ${DISTRIBUTION})`,
        `withdrawal debit ${unnamed.id}: confirmed without a withdrawal (25.0000000 from ${WALLET} to ${DISTRIBUTION})`,
        `withdrawal refund ${lostRefund.id}: confirmed for withdrawal ${gone.id}, which does not exist (25.0000000 from ${DISTRIBUTION} to ${WALLET})`,
      ]);
    });

    it('calls a debit, refund or transfer of another amount, and tokens given back to another wallet, a discrepancy', () => {
      const paid = withdrawal('paid');
      const back = withdrawal('refunded');

      const report = audit({
        withdrawals: [paid, back],
        entries: [debit(paid, { amountStroops: 240_000_000n }), debit(back), refund(back, { amountStroops: 250_000_001n, toPublicKey: OTHER_WALLET })],
        transfers: [transfer(paid, 'success', { amountKobo: 250_001n })],
      });

      expect(report.discrepancies).toEqual([
        lineFor(paid, 'a debit took 24.0000000, not its 25.0000000', 'a transfer of 2500.01 NGN under its reference, not its 2500.00 NGN'),
        lineFor(back, 'a refund gave back 25.0000001, not its 25.0000000', `a refund gave its tokens to ${OTHER_WALLET}, not its wallet`),
      ]);
    });

    it('calls Naira paid, or a transfer made, before the tokens left the wallet a discrepancy', () => {
      const requested = withdrawal('requested', { statusSince: minutesAgo(1) });
      const debiting = withdrawal('debiting', { statusSince: minutesAgo(1) });

      const report = audit({ withdrawals: [requested, debiting], transfers: [transfer(requested, 'success'), transfer(debiting, 'failed')] });

      expect(report.discrepancies).toEqual([
        lineFor(requested, 'requested, but the provider paid its Naira'),
        lineFor(debiting, 'debiting, but a transfer was made under its reference before its tokens left the wallet'),
      ]);
    });

    it('calls a withdrawal owed its tokens back whose transfer the provider shows success a discrepancy at once, however young', () => {
      const w = withdrawal('refund_due', { statusSince: minutesAgo(1) });

      const report = audit({ withdrawals: [w], entries: [debit(w)], transfers: [transfer(w, 'success')] });

      expect(report).toEqual({ discrepancies: [lineFor(w, 'refund_due, but the provider paid its Naira')], inFlight: [] });
    });
  });

  describe('withdrawals in flight', () => {
    // Each state not final, with what it holds by then: the debit once the tokens left, a pending transfer once one was asked for.
    const IN_FLIGHT: { status: WithdrawalState; taken: boolean; transferStatus?: string }[] = [
      { status: 'requested', taken: false },
      { status: 'debiting', taken: false },
      { status: 'debited', taken: true },
      { status: 'sending', taken: true, transferStatus: 'pending' },
      { status: 'waiting_float', taken: true },
      { status: 'processing', taken: true, transferStatus: 'pending' },
      { status: 'awaiting_otp', taken: true, transferStatus: 'otp' },
      { status: 'refund_due', taken: true, transferStatus: 'failed' },
      { status: 'refunding', taken: true, transferStatus: 'reversed' },
    ];

    it.each(IN_FLIGHT)('lists a withdrawal $status for less than the grace in flight, and calls one past it a discrepancy', ({ status, taken, transferStatus }) => {
      const young = withdrawal(status, { statusSince: minutesAgo(14) });
      const old = withdrawal(status, { statusSince: minutesAgo(16) });
      const both = [young, old];

      const report = audit({
        withdrawals: both,
        entries: taken ? both.map((w) => debit(w)) : [],
        transfers: transferStatus ? both.map((w) => transfer(w, transferStatus)) : [],
      });

      expect(report.inFlight).toEqual([`${young.id} (${status})`]);
      expect(report.discrepancies).toEqual([lineFor(old, `still ${status} since ${minutesAgo(16).toISOString()}, past the in-flight grace`)]);
    });

    it('lists in flight a withdrawal the provider paid before the service recorded it, and calls it a discrepancy past the grace', () => {
      const young = withdrawal('processing', { statusSince: minutesAgo(2) });
      const old = withdrawal('processing', { statusSince: minutesAgo(20) });

      const report = audit({ withdrawals: [young, old], entries: [debit(young), debit(old)], transfers: [transfer(young), transfer(old)] });

      expect(report.inFlight).toEqual([`${young.id} (processing)`]);
      expect(report.discrepancies).toEqual([lineFor(old, `still processing since ${minutesAgo(20).toISOString()}, past the in-flight grace`)]);
    });

    it('calls a young withdrawal in flight a discrepancy at once when its state rules out what the ledger shows', () => {
      const debitedWithout = withdrawal('debited', { statusSince: minutesAgo(1) });
      const sendingRefunded = withdrawal('sending', { statusSince: minutesAgo(1) });

      const report = audit({ withdrawals: [debitedWithout, sendingRefunded], entries: [debit(sendingRefunded), refund(sendingRefunded)] });

      expect(report).toEqual({
        discrepancies: [lineFor(debitedWithout, 'debited, but no confirmed debit took its tokens'), lineFor(sendingRefunded, 'sending, but a refund gave its tokens back')],
        inFlight: [],
      });
    });
  });

  describe('no reference is paid twice', () => {
    it('calls two provider successes under one withdrawal\'s reference a discrepancy', () => {
      const paid = paidOut();

      const report = audit({ withdrawals: [paid.w], entries: paid.entries, transfers: [...paid.transfers, transfer(paid.w, 'success')] });

      expect(report.discrepancies).toEqual([lineFor(paid.w, 'paid 2 times at the provider under its reference')]);
    });

    it('calls a withdrawal both paid at the provider and refunded on the ledger a discrepancy', () => {
      const paid = paidOut();

      const report = audit({ withdrawals: [paid.w], entries: [...paid.entries, refund(paid.w)], transfers: paid.transfers });

      expect(report.discrepancies).toEqual([lineFor(paid.w, 'paid, but a refund gave its tokens back', 'paid at the provider and refunded on the ledger')]);
    });
  });

  describe('every transfer of ours belongs to a withdrawal', () => {
    it('calls a wdl- transfer no withdrawal has a discrepancy, whatever its status, and says when it was paid twice', () => {
      const paid = paidOut();
      const stray = { reference: 'wdl-80000000-0000-4000-8000-000000000008', nairaKobo: 99_900n };
      const strayFailed = { reference: 'wdl-80000000-0000-4000-8000-000000000007', nairaKobo: 100n };

      const report = audit({
        withdrawals: [paid.w],
        entries: paid.entries,
        transfers: [...paid.transfers, transfer(stray), transfer(stray), transfer(strayFailed, 'failed')],
      });

      expect(report.discrepancies).toEqual([
        `transfer ${strayFailed.reference}: ours, but no withdrawal has its reference (provider: failed, 1.00 NGN)`,
        `transfer ${stray.reference}: ours, but no withdrawal has its reference, paid 2 times (provider: success, 999.00 NGN, success, 999.00 NGN)`,
      ]);
    });

    it('leaves a wdl- transfer made before this database\'s first record to another deployment, unless its creation time cannot be read', () => {
      const paid = paidOut();
      const before = transfer({ reference: 'wdl-70000000-0000-4000-8000-000000000001', nairaKobo: 100n }, 'success', { createdAt: minutesAgo(121) });
      const unreadable = transfer({ reference: 'wdl-70000000-0000-4000-8000-000000000002', nairaKobo: 100n });
      unreadable.raw = { reference: unreadable.reference };

      const report = audit({ withdrawals: [paid.w], entries: paid.entries, transfers: [...paid.transfers, before, unreadable] });

      expect(report.discrepancies).toEqual([`transfer ${unreadable.reference}: ours, but no withdrawal has its reference (provider: success, 1.00 NGN)`]);
    });

    it('calls a transfer under a withdrawal\'s reference for another amount a discrepancy, whatever its status', () => {
      const back = refunded();
      back.transfers = [transfer(back.w, 'failed', { amountKobo: 1n })];

      const report = audit({ withdrawals: [back.w], entries: back.entries, transfers: back.transfers });

      expect(report.discrepancies).toEqual([lineFor(back.w, 'a transfer of 0.01 NGN under its reference, not its 2500.00 NGN')]);
    });
  });
});
