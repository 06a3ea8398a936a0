import type { ProviderTransfer } from '../clients/paystack.client';
import type { EntryRow } from '../db/repositories/journal.repository';
import type { WithdrawalRow } from '../db/repositories/withdrawal.repository';
import { formatKobo, formatStroops } from '../domain/amounts';
import { WITHDRAWAL_REFERENCE_PREFIX, type WithdrawalState } from '../domain/withdrawal-lifecycle';

export interface WithdrawalAuditInput {
  /** Every withdrawal, read after the entries (a confirmed entry's withdrawal has moved by then). */
  withdrawals: WithdrawalRow[];
  /** Every journal entry (each confirmed one was checked against the ledger by the caller). */
  entries: EntryRow[];
  /** The kinds whose entries take a withdrawal's tokens from the wallet (they claim 'withdrawal debit'). */
  debitKinds: ReadonlySet<string>;
  /** The kinds whose entries give a withdrawal's tokens back (they claim 'withdrawal refund'). */
  refundKinds: ReadonlySet<string>;
  /** Every transfer the provider lists, every integration's (read after the withdrawals). */
  transfers: ProviderTransfer[];
  now: Date;
  inFlightGraceMs: number;
}

export interface WithdrawalAudit {
  discrepancies: string[];
  /** Withdrawals not final yet, in their state for less than `inFlightGraceMs`: `<id> (<status>)`. */
  inFlight: string[];
}

/**
 * What each state says of a withdrawal's tokens and Naira, as this audit holds them to it. A
 * Record, so a new state cannot pass unjudged.
 * - `taken`: the tokens left the wallet (exactly one confirmed debit) or not yet / never (none).
 * - `naira`: `never` (no provider success may exist: nothing was taken, or the tokens are owed
 *   back), `maybe` (the provider may be ahead of the service: a success not recorded yet) or
 *   `paid` (exactly one success).
 * - `final`: the withdrawal moves no more (unless the provider reverses a paid one); the others
 *   are in flight, and a discrepancy once in their state past the grace.
 */
const STATE_HOLDS: Record<WithdrawalState, { taken: boolean; naira: 'never' | 'maybe' | 'paid'; final: boolean }> = {
  requested: { taken: false, naira: 'never', final: false },
  debiting: { taken: false, naira: 'never', final: false },
  debit_failed: { taken: false, naira: 'never', final: true },
  cancelled: { taken: false, naira: 'never', final: true },
  debited: { taken: true, naira: 'maybe', final: false },
  sending: { taken: true, naira: 'maybe', final: false },
  waiting_float: { taken: true, naira: 'maybe', final: false },
  processing: { taken: true, naira: 'maybe', final: false },
  awaiting_otp: { taken: true, naira: 'maybe', final: false },
  paid: { taken: true, naira: 'paid', final: true },
  refund_due: { taken: true, naira: 'never', final: false },
  refunding: { taken: true, naira: 'never', final: false },
  refunded: { taken: true, naira: 'never', final: true },
};

interface Views {
  withdrawal: WithdrawalRow;
  /** Its confirmed debit entries (one expected once the tokens left). */
  debits: EntryRow[];
  /** Its confirmed refund entries (one expected once refunded). */
  refunds: EntryRow[];
  /** The provider's transfers under its reference, whatever their status. */
  transfers: ProviderTransfer[];
}

/**
 * Withdrawals, three ways: the tokens the journal took and gave back, the withdrawals recorded,
 * and the transfers the provider shows.
 * - Every confirmed debit is matched by exactly one provider `success` transfer of the
 *   withdrawal's Naira under its reference, or by exactly one confirmed refund of the same tokens
 *   to the same wallet; never both, and never neither once the withdrawal is final (`paid`,
 *   `refunded`). A withdrawal not final is in flight while in its state for less than the grace
 *   (a `paid` one the provider reversed too, counted from the later of the two clocks), then a
 *   discrepancy; what its state rules out (see STATE_HOLDS) is one at once.
 * - No reference is paid twice: at most one provider `success` per reference, and none for a
 *   withdrawal refunded or owed its tokens back.
 * - Every provider transfer under this service's prefix (`wdl-`) belongs to a withdrawal, for its
 *   Naira; one unknown to the database counts only from the database's first record (earlier ones
 *   belong to another deployment on the same account, or to a database started afresh).
 * - Every confirmed debit and refund names a withdrawal that exists.
 * Pure: the caller reads the rows and the provider's list. One line per disagreement, naming the
 * withdrawal and what the provider, the database and the ledger each say.
 */
export function auditWithdrawals(input: WithdrawalAuditInput): WithdrawalAudit {
  const discrepancies: string[] = [];
  const withdrawalIds = new Set(input.withdrawals.map((w) => w.id));
  const debitsOf = confirmedEntriesOf(input.entries, input.debitKinds, 'debit', withdrawalIds, discrepancies);
  const refundsOf = confirmedEntriesOf(input.entries, input.refundKinds, 'refund', withdrawalIds, discrepancies);
  const transfersOf = new Map<string, ProviderTransfer[]>();
  for (const t of input.transfers) transfersOf.set(t.reference, [...(transfersOf.get(t.reference) ?? []), t]);

  const inFlight: string[] = [];
  for (const withdrawal of input.withdrawals) {
    const views: Views = {
      withdrawal,
      debits: debitsOf.get(withdrawal.id) ?? [],
      refunds: refundsOf.get(withdrawal.id) ?? [],
      transfers: transfersOf.get(withdrawal.reference) ?? [],
    };
    const verdict = judge(views, input);
    if (verdict === 'in flight') inFlight.push(`${withdrawal.id} (${withdrawal.status})`);
    else if (verdict.length > 0) discrepancies.push(`withdrawal ${withdrawal.id} (${withdrawal.reference}): ${verdict.join('; ')} (${whatEachSays(views)})`);
  }

  const references = new Set(input.withdrawals.map((w) => w.reference));
  const firstRecord = earliest([...input.withdrawals.map((w) => w.createdAt), ...input.entries.map((e) => e.createdAt)]);
  for (const [reference, transfers] of [...transfersOf].sort(([a], [b]) => a.localeCompare(b))) {
    if (references.has(reference) || !reference.startsWith(WITHDRAWAL_REFERENCE_PREFIX)) continue;
    const ours = transfers.filter((t) => createdSince(t, firstRecord));
    if (ours.length === 0) continue;
    const paid = ours.filter((t) => t.status === 'success').length;
    const twice = paid > 1 ? `, paid ${paid} times` : '';
    discrepancies.push(`transfer ${reference}: ours, but no withdrawal has its reference${twice} (provider: ${ours.map(saidOf).join(', ')})`);
  }
  return { discrepancies, inFlight };
}

/** What is wrong with one withdrawal, or 'in flight' for one not final whose state is young. */
function judge({ withdrawal: w, debits, refunds, transfers }: Views, input: Pick<WithdrawalAuditInput, 'now' | 'inFlightGraceMs'>): string[] | 'in flight' {
  const holds = STATE_HOLDS[w.status];
  const problems: string[] = [];
  const successes = transfers.filter((t) => t.status === 'success');

  // The tokens: taken once, given back at most once, each of the withdrawal's amount and wallet.
  if (holds.taken && debits.length === 0) problems.push(`${w.status}, but no confirmed debit took its tokens`);
  if (!holds.taken && debits.length > 0) problems.push(`${w.status}, but a debit took its tokens`);
  if (debits.length > 1) problems.push(`${debits.length} confirmed debits`);
  for (const d of debits) {
    if (d.amountStroops !== w.amountStroops) problems.push(`a debit took ${formatStroops(d.amountStroops)}, not its ${formatStroops(w.amountStroops)}`);
    if (d.fromPublicKey !== w.walletPublicKey) problems.push(`a debit took its tokens from ${d.fromPublicKey}, not its wallet`);
  }
  if (w.status === 'refunded' && refunds.length === 0) problems.push('refunded, but no confirmed refund gave its tokens back');
  if (w.status !== 'refunded' && refunds.length > 0) problems.push(`${w.status}, but a refund gave its tokens back`);
  if (refunds.length > 1) problems.push(`${refunds.length} confirmed refunds`);
  for (const r of refunds) {
    if (r.amountStroops !== w.amountStroops) problems.push(`a refund gave back ${formatStroops(r.amountStroops)}, not its ${formatStroops(w.amountStroops)}`);
    if (r.toPublicKey !== w.walletPublicKey) problems.push(`a refund gave its tokens to ${r.toPublicKey}, not its wallet`);
  }

  // The Naira: one transfer under the reference, of the withdrawal's amount, paid at most once.
  if (successes.length > 1) problems.push(`paid ${successes.length} times at the provider under its reference`);
  if (successes.length > 0 && refunds.length > 0) problems.push('paid at the provider and refunded on the ledger');
  else if (successes.length > 0 && holds.naira === 'never') problems.push(`${w.status}, but the provider paid its Naira`);
  // Never Naira before tokens: not even a transfer that did not pay.
  if (!holds.taken && transfers.length > successes.length) problems.push(`${w.status}, but a transfer was made under its reference before its tokens left the wallet`);
  for (const t of transfers) {
    if (t.amountKobo !== w.nairaKobo) problems.push(`a transfer of ${formatKobo(t.amountKobo)} NGN under its reference, not its ${formatKobo(w.nairaKobo)} NGN`);
  }

  let since = w.statusSince;
  if (holds.naira === 'paid' && successes.length === 0) {
    const reversed = transfers.find((t) => t.status === 'reversed');
    // The one move a paid transfer still makes: its reversal reaches the service by webhook or sweep.
    if (!reversed) problems.push(transfers.length === 0 ? 'paid, but the provider does not know its reference' : `paid, but the provider says ${transfers.map((t) => t.status).join(', ')}`);
    else {
      since = later(since, updatedAt(reversed));
      if (problems.length === 0 && young(since, input)) return 'in flight';
      problems.push(`paid, but the provider reversed it and its tokens are not given back (since ${since.toISOString()})`);
    }
  }

  if (!holds.final && problems.length === 0) {
    if (young(since, input)) return 'in flight';
    problems.push(`still ${w.status} since ${since.toISOString()}, past the in-flight grace`);
  }
  return problems;
}

/**
 * The confirmed entries of `kinds` by withdrawal id; one naming no withdrawal, or one that does
 * not exist, is a discrepancy of its own.
 */
function confirmedEntriesOf(entries: EntryRow[], kinds: ReadonlySet<string>, what: 'debit' | 'refund', withdrawalIds: ReadonlySet<string>, discrepancies: string[]): Map<string, EntryRow[]> {
  const byWithdrawal = new Map<string, EntryRow[]>();
  for (const e of entries) {
    if (!kinds.has(e.kind) || e.status !== 'confirmed') continue;
    const moved = `${formatStroops(e.amountStroops)} from ${e.fromPublicKey} to ${e.toPublicKey}`;
    if (!e.withdrawalId) discrepancies.push(`withdrawal ${what} ${e.id}: confirmed without a withdrawal (${moved})`);
    else if (!withdrawalIds.has(e.withdrawalId)) discrepancies.push(`withdrawal ${what} ${e.id}: confirmed for withdrawal ${e.withdrawalId}, which does not exist (${moved})`);
    else byWithdrawal.set(e.withdrawalId, [...(byWithdrawal.get(e.withdrawalId) ?? []), e]);
  }
  return byWithdrawal;
}

/** `provider: ...; database: ...; ledger: ...` for a discrepancy's line. */
function whatEachSays({ withdrawal: w, debits, refunds, transfers }: Views): string {
  const said = transfers.length === 0 ? 'no such reference' : transfers.map(saidOf).join(', ');
  const recorded = `${w.status}${w.reason ? ` (${w.reason})` : ''}, ${formatStroops(w.amountStroops)} tokens for ${formatKobo(w.nairaKobo)} NGN`;
  const moved = [...debits.map((d) => `debit of ${formatStroops(d.amountStroops)} in ${d.ledgerTransactionId}`), ...refunds.map((r) => `refund of ${formatStroops(r.amountStroops)} in ${r.ledgerTransactionId}`)];
  return `provider: ${said}; database: ${recorded}; ledger: ${moved.length === 0 ? 'no debit or refund' : moved.join(', ')}`;
}

function saidOf(t: ProviderTransfer): string {
  return `${t.status}, ${formatKobo(t.amountKobo)} NGN`;
}

function young(since: Date, input: Pick<WithdrawalAuditInput, 'now' | 'inFlightGraceMs'>): boolean {
  return input.now.getTime() - since.getTime() < input.inFlightGraceMs;
}

/** When the provider last changed the transfer (Paystack's `updatedAt`), or undefined when unreadable. */
function updatedAt(t: ProviderTransfer): Date | undefined {
  return providerTime(t, 'updatedAt', 'updated_at');
}

function providerTime(t: ProviderTransfer, ...fields: string[]): Date | undefined {
  for (const field of fields) {
    const value = t.raw[field];
    const at = typeof value === 'string' ? Date.parse(value) : NaN;
    if (!Number.isNaN(at)) return new Date(at);
  }
  return undefined;
}

function later(a: Date, b: Date | undefined): Date {
  return b !== undefined && b > a ? b : a;
}

function earliest(dates: Date[]): Date | undefined {
  return dates.reduce<Date | undefined>((min, d) => (min === undefined || d < min ? d : min), undefined);
}

/**
 * Created at or after the database's first record, by the provider's `createdAt` (unreadable
 * counts as after). With no record at all, nothing at the provider is this database's.
 */
function createdSince(t: ProviderTransfer, firstRecord: Date | undefined): boolean {
  if (firstRecord === undefined) return false;
  const created = providerTime(t, 'createdAt', 'created_at');
  return created === undefined || created >= firstRecord;
}
