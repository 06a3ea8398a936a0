import type { PaystackClient, VerifiedTransaction } from '../clients/paystack.client';
import type { EntryRow } from '../db/repositories/journal.repository';
import type { PaymentRepository, PaymentRow } from '../db/repositories/payment.repository';
import { formatKobo, formatStroops } from '../domain/amounts';
import { MINTED_STATES } from '../domain/payment-lifecycle';

/** This service's payment references are `wlt-<uuid>` (PaymentService.createIntent). */
const OUR_PREFIX = 'wlt-';

/**
 * How long a consumed payment may wait for its mint (`paid`: its buyer's wallet is still being
 * activated, or the sweep has not come round) before the audit calls it a discrepancy. Younger
 * ones are listed as in flight: the audit is meant for a quiet service, not a stopped clock.
 */
export const IN_FLIGHT_GRACE_MS = 15 * 60 * 1000;

/**
 * The provider's list is read from a little before the database's first record, so a reference
 * this database knows is listed even if the provider's clock runs behind ours. A success unknown
 * to the database counts only from the first record itself (see auditPayments).
 */
const CLOCK_MARGIN_MS = 10 * 60 * 1000;

/** What the provider shows for a payment whose money arrived: paid, or paid and (partly) returned since. */
const PAID_AT_PROVIDER: ReadonlySet<string> = new Set(['success', 'reversed']);

const PAGE_SIZE = 500;

export interface PaymentAuditInput {
  provider: PaystackClient;
  payments: PaymentRepository;
  /** Every journal entry (the caller has read them). */
  entries: EntryRow[];
  /** The kinds whose entries mint a payment's tokens (they claim its reference). */
  mintKinds: ReadonlySet<string>;
  now: Date;
  inFlightGraceMs: number;
}

export interface PaymentAudit {
  discrepancies: string[];
  /** References consumed less than `inFlightGraceMs` ago whose mint is not written yet. */
  inFlight: string[];
  /** Distinct provider transactions looked at. */
  providerTransactions: number;
  /** Payments in `minted`. */
  mintedPayments: number;
  /** What the provider says of each reference it was asked about (the reversal leg reads it). */
  providerStatus: Map<string, string>;
  /** Every payment, as read for this audit. */
  payments: PaymentRow[];
}

interface Views {
  provider: VerifiedTransaction | undefined;
  payment: PaymentRow | undefined;
  /** The reference's payment_mint entries that the journal confirmed (each checked against the ledger by the caller). */
  mints: EntryRow[];
}

/**
 * Payments, three ways: what the provider says was paid, what the database recorded, and the
 * mints the journal confirmed on the ledger. Per reference:
 * - a provider success is consumed (`paid` onward) or a recorded decision (`failed` with a
 *   reason); `initialized` or `failed` without a reason means money arrived that nobody settled;
 * - a consumed payment is still `success` at the provider (or `reversed`: refunded since, whose
 *   tokens the reversal leg accounts for) for the recorded amount in NGN;
 * - `minted` (and the states after it) has exactly one confirmed mint, in `mintTxHash`, of the
 *   tokens the payment recorded; no other payment has one; `paid` is in flight until
 *   `inFlightGraceMs` after it was consumed;
 * - a state this audit does not know is taken as decided, with at most one mint.
 * References the provider shows that the database never issued are another integration's on the
 * same account and ignored, unless they carry this service's prefix, were paid, and were created
 * after the database's first record (earlier ones belong to another deployment, or to a database
 * started afresh). Each disagreement is one line naming the reference and all three views.
 */
export async function auditPayments(input: PaymentAuditInput): Promise<PaymentAudit> {
  const payments = await allPayments(input.payments);
  const paymentOf = new Map(payments.map((p) => [p.reference, p]));
  const mintsOf = new Map<string, EntryRow[]>();
  for (const e of input.entries) {
    if (input.mintKinds.has(e.kind) && e.status === 'confirmed' && e.paymentReference) mintsOf.set(e.paymentReference, [...(mintsOf.get(e.paymentReference) ?? []), e]);
  }

  const firstRecord = earliest([...payments.map((p) => p.createdAt), ...input.entries.map((e) => e.createdAt)]);
  const listed = new Map<string, VerifiedTransaction>();
  if (firstRecord) {
    for await (const t of input.provider.allTransactions({ from: new Date(firstRecord.getTime() - CLOCK_MARGIN_MS) })) listed.set(t.reference, t);
  }
  // A reference the database or the journal says was paid must be at the provider: one the list did
  // not show (created earlier by the provider's clock) is asked for on its own.
  for (const reference of new Set([...payments.filter(isConsumed).map((p) => p.reference), ...mintsOf.keys()])) {
    if (listed.has(reference)) continue;
    const found = await input.provider.verify(reference);
    if (found) listed.set(reference, found);
  }

  const unknownToUs = [...listed.values()].filter((t) => t.status === 'success' && t.reference.startsWith(OUR_PREFIX) && createdSince(t, firstRecord));
  const references = new Set([...paymentOf.keys(), ...mintsOf.keys(), ...unknownToUs.map((t) => t.reference)]);
  const discrepancies: string[] = [];
  const inFlight: string[] = [];
  for (const reference of [...references].sort()) {
    const views: Views = { provider: listed.get(reference), payment: paymentOf.get(reference), mints: mintsOf.get(reference) ?? [] };
    const verdict = judge(views, input);
    if (verdict === 'in flight') inFlight.push(reference);
    else if (verdict.length > 0) discrepancies.push(`payment ${reference}: ${verdict.join('; ')} (${whatEachSays(views)})`);
  }
  const providerStatus = new Map([...listed].map(([reference, t]) => [reference, t.status]));
  return { discrepancies, inFlight, providerTransactions: listed.size, mintedPayments: payments.filter((p) => p.status === 'minted').length, providerStatus, payments };
}

/** What is wrong with one reference, or 'in flight' for a young consumed payment not minted yet. */
function judge({ provider, payment, mints }: Views, input: Pick<PaymentAuditInput, 'now' | 'inFlightGraceMs'>): string[] | 'in flight' {
  const problems: string[] = [];
  if (!payment) {
    if (mints.length > 0) problems.push('minted for a payment the database does not have');
    else if (provider?.status === 'success') problems.push('paid at the provider, and the database never issued it');
    return problems;
  }
  if (!isConsumed(payment)) {
    if (payment.status === 'failed' && payment.failureReason) {
      if (mints.length > 0) problems.push('minted, though the payment was refused');
      return problems;
    }
    if (provider?.status === 'success') problems.push('paid at the provider, never consumed');
    if (mints.length > 0) problems.push('minted, though the payment was never consumed');
    return problems;
  }

  // Consumed: the provider said success for the recorded amount in NGN.
  if (!provider) problems.push('consumed, but the provider does not know the reference');
  else if (!PAID_AT_PROVIDER.has(provider.status)) problems.push(`consumed, but the provider says ${provider.status}`);
  else if (provider.amountKobo !== payment.amountKobo || provider.currency !== 'NGN') problems.push('consumed, but the provider was paid another amount');

  if (payment.status === 'paid') {
    if (mints.length > 0) problems.push('its mint is confirmed, but the payment is still paid');
    else if (problems.length === 0) {
      const since = payment.paidAt ?? payment.updatedAt;
      if (input.now.getTime() - since.getTime() < input.inFlightGraceMs) return 'in flight';
      problems.push(`consumed at ${since.toISOString()}, still not minted`);
    }
  } else if (payment.status === 'minting') {
    // An open mint entry is reported by the journal's own checks.
    if (mints.length > 0) problems.push('its mint is confirmed, but the payment is still minting');
  } else {
    // A purchase whose tokens all went to the buyer's debt was never minted (nothing reached the wallet).
    const coveredByDebt = payment.tokensStroops === 0n && (payment.debtSettledStroops ?? 0n) > 0n;
    const wanted = !MINTED_STATES.includes(payment.status) ? 'at most one' : coveredByDebt ? 'none' : 'exactly one';
    const expected = wanted === 'at most one' ? mints.length <= 1 : mints.length === (wanted === 'none' ? 0 : 1);
    if (!expected) problems.push(`${payment.status} with ${mints.length} confirmed mints (expected ${wanted})`);
    const [mint] = mints;
    if (mints.length === 1 && mint) {
      if (mint.ledgerTransactionId !== payment.mintTxHash) problems.push(`its mint is in ${mint.ledgerTransactionId}, the payment names ${payment.mintTxHash ?? 'none'}`);
      if (mint.amountStroops !== payment.tokensStroops) problems.push(`minted ${formatStroops(mint.amountStroops)}, the payment recorded ${payment.tokensStroops === null ? 'none' : formatStroops(payment.tokensStroops)}`);
    }
  }
  return problems;
}

/** Past `initialized` and not refused: the provider's success was recorded (the reference consumed). */
function isConsumed(payment: PaymentRow): boolean {
  return payment.status !== 'initialized' && payment.status !== 'failed';
}

/** `provider: ...; database: ...; ledger: ...` for a discrepancy's line. */
function whatEachSays({ provider, payment, mints }: Views): string {
  const said = provider ? `${provider.status}, ${formatKobo(provider.amountKobo)} ${provider.currency}` : 'no such reference';
  const recorded = payment
    ? `${payment.status}${payment.failureReason ? ` (${payment.failureReason})` : ''}, ${formatKobo(payment.amountKobo)} ${payment.currency}`
    : 'no such payment';
  const minted = mints.length === 0 ? 'no mint' : mints.map((m) => `minted ${formatStroops(m.amountStroops)} in ${m.ledgerTransactionId}`).join(', ');
  return `provider: ${said}; database: ${recorded}; ledger: ${minted}`;
}

function earliest(dates: Date[]): Date | undefined {
  return dates.reduce<Date | undefined>((min, d) => (min === undefined || d < min ? d : min), undefined);
}

/** Created at or after the database's first record, by the provider's `created_at` (unreadable counts as after). */
function createdSince(transaction: VerifiedTransaction, firstRecord: Date | undefined): boolean {
  const created = transaction.raw.created_at ?? transaction.raw.createdAt;
  const at = typeof created === 'string' ? Date.parse(created) : NaN;
  return Number.isNaN(at) || firstRecord === undefined || at >= firstRecord.getTime();
}

async function allPayments(repository: PaymentRepository): Promise<PaymentRow[]> {
  const rows: PaymentRow[] = [];
  for (let offset = 0; ; offset += PAGE_SIZE) {
    const page = await repository.page({ limit: PAGE_SIZE, offset });
    rows.push(...page.rows);
    if (page.rows.length < PAGE_SIZE) return rows;
  }
}
