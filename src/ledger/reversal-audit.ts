import type { EntryRow } from '../db/repositories/journal.repository';
import type { PaymentRow } from '../db/repositories/payment.repository';
import type { ReversalRow } from '../db/repositories/reversal.repository';
import { formatStroops } from '../domain/amounts';
import { MINTED_STATES } from '../domain/payment-lifecycle';

export interface ReversalAuditInput {
  reversals: ReversalRow[];
  payments: PaymentRow[];
  /** Every journal entry (clawbacks among them; each confirmed one was checked against the ledger by the caller). */
  entries: EntryRow[];
  /** The kinds whose entries take a reversal's tokens back (they claim the reversal). */
  clawbackKinds: ReadonlySet<string>;
  /** What the provider says of each reference (PaymentAudit.providerStatus). */
  providerStatus: Map<string, string>;
}

/**
 * Money that went back, three ways: the provider's reversed charges, the reversals recorded, and
 * the clawbacks the journal confirmed. Every reversal is done (the audit runs when the service is
 * quiet), its tokens all accounted for as taken back or owed (`clawed + debt = tokens`), what it
 * took back is exactly one confirmed clawback of that amount, and every confirmed clawback belongs
 * to one; a payment `reversed` has a reversal; a minted payment the provider shows `reversed` was
 * reversed in the database. One line per disagreement.
 */
export function auditReversals(input: ReversalAuditInput): string[] {
  const discrepancies: string[] = [];
  const clawbacksOf = new Map<string, EntryRow[]>();
  for (const e of input.entries) {
    if (!input.clawbackKinds.has(e.kind) || e.status !== 'confirmed') continue;
    if (!e.reversalId) {
      discrepancies.push(`clawback ${e.id}: confirmed without a reversal (${formatStroops(e.amountStroops)} from ${e.fromPublicKey})`);
      continue;
    }
    clawbacksOf.set(e.reversalId, [...(clawbacksOf.get(e.reversalId) ?? []), e]);
  }
  const reversalIds = new Set(input.reversals.map((r) => r.id));
  for (const [id, entries] of clawbacksOf) {
    if (!reversalIds.has(id)) discrepancies.push(`clawback ${entries[0]!.id}: confirmed for reversal ${id}, which does not exist`);
  }

  for (const r of input.reversals) {
    const clawbacks = clawbacksOf.get(r.id) ?? [];
    const where = `reversal ${r.key} of ${r.paymentReference}`;
    if (r.status !== 'done') {
      discrepancies.push(`${where}: still ${r.status}${r.note ? ` (${r.note})` : ''}`);
      continue;
    }
    const clawed = r.clawedStroops ?? 0n;
    const debt = r.debtStroops ?? 0n;
    const minted = r.note !== 'The payment was never minted';
    if (minted && clawed + debt !== r.tokensStroops) {
      discrepancies.push(`${where}: ${formatStroops(r.tokensStroops)} to take back, ${formatStroops(clawed)} taken back and ${formatStroops(debt)} owed`);
    }
    const taken = clawbacks.reduce((sum, e) => sum + e.amountStroops, 0n);
    if (clawbacks.length > 1 || taken !== clawed) {
      discrepancies.push(`${where}: records ${formatStroops(clawed)} taken back, the ledger has ${clawbacks.length} confirmed clawbacks of ${formatStroops(taken)}`);
    }
  }

  const reversed = new Set(input.reversals.map((r) => r.paymentReference));
  for (const p of input.payments) {
    if (p.status === 'reversed' && !reversed.has(p.reference)) discrepancies.push(`payment ${p.reference}: reversed without a reversal`);
    const provider = input.providerStatus.get(p.reference);
    if (provider === 'reversed' && MINTED_STATES.includes(p.status) && !reversed.has(p.reference)) {
      discrepancies.push(`payment ${p.reference}: the provider says reversed, its tokens were minted, and no reversal is recorded`);
    }
  }
  return discrepancies;
}
