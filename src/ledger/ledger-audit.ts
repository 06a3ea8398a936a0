import type { Asset } from '@stellar/stellar-sdk';
import { balanceOf, type FoundTransaction, type LedgerApi } from '../clients/ledger-api';
import type { EnvelopeRow, JournalRepository } from '../db/repositories/journal.repository';
import type { MovementRepository, MovementRow } from '../db/repositories/movement.repository';
import type { PaystackClient, ProviderTransfer } from '../clients/paystack.client';
import type { ReversalRepository } from '../db/repositories/reversal.repository';
import { auditReversals } from './reversal-audit';
import type { PaymentRepository } from '../db/repositories/payment.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import type { WithdrawalRepository } from '../db/repositories/withdrawal.repository';
import { formatStroops, parseTokenAmount } from '../domain/amounts';
import { burns } from '../domain/ledger-movement';
import type { KindRegistry } from './kinds/registry';
import { auditPayments, IN_FLIGHT_GRACE_MS } from './payment-audit';
import { auditWithdrawals } from './withdrawal-audit';

export interface AuditInput {
  client: LedgerApi;
  journal: JournalRepository;
  wallets: WalletRepository;
  payments: PaymentRepository;
  reversals: ReversalRepository;
  withdrawals: WithdrawalRepository;
  /** What the ledger follower recorded of movements made outside the service, and the ledgers it could not read. */
  movements: MovementRepository;
  /** The payment provider: what it says was paid (and paid out) is compared with the payments, the withdrawals and their entries. */
  provider: PaystackClient;
  asset: Asset;
  distribution: string;
  /** How long a consumed payment may wait for its mint, and a withdrawal stay in a state not final, before it is a discrepancy. Default IN_FLIGHT_GRACE_MS. */
  inFlightGraceMs?: number;
  /** The kinds of ledger write: how each counts in the supply, which claim payments, reversals and withdrawals. */
  kinds: KindRegistry;
}

export interface AuditReport {
  discrepancies: string[];
  checked: {
    envelopes: number;
    entries: number;
    ledgerPayments: number;
    /** Movements the follower recorded (made outside the service). */
    followedMovements: number;
    wallets: number;
    mintedPayments: number;
    providerTransactions: number;
    withdrawals: number;
    providerTransfers: number;
  };
  /**
   * Envelopes the ledger API can no longer show (their ledgers left its history window): a
   * confirmed one is not verified again, an open one waits for an operator (listed in discrepancies too).
   */
  beyondRetention: string[];
  /** Payments consumed less than `inFlightGraceMs` ago whose mint is not written yet: not discrepancies (yet). */
  inFlight: string[];
  /** Withdrawals not final, in their state less than `inFlightGraceMs` (`<id> (<status>)`): not discrepancies (yet). */
  withdrawalsInFlight: string[];
}

/**
 * Compares the payment provider, the database and the ledger, from the ledger's side and the journal's:
 * - every envelope's journal state against the ledger API (confirmed = applied, failed = not applied, none left
 *   open), within the API's history window;
 * - on Horizon, every token payment on the ledger to or from a service account against exactly one confirmed
 *   entry, and every confirmed entry against exactly one such payment (no movement without its
 *   record, no record without its movement);
 * - every wallet's token balance against the sum of its records (the journal's entries and the
 *   movements the follower recorded), and the tokens issued against what the distribution account,
 *   the wallets and each outside account hold;
 * - every gap in the followed history (ledgers the API no longer held) not yet resolved;
 * - the provider's paid references, the payments and their mints, one against the others (auditPayments);
 * - the provider's transfers, the withdrawals, and their debits and refunds (auditWithdrawals).
 * Read-only. Each discrepancy is one line of the report.
 */
export async function auditLedger(input: AuditInput): Promise<AuditReport> {
  const { client, journal, kinds } = input;
  // Kinds that move the token, matched one for one with payments on the ledger.
  const tokenKinds = kinds.withSupply('minted', 'sent', 'issued');
  const discrepancies: string[] = [];
  const envelopes = await journal.allEnvelopes();
  const entries = await journal.allEntries();

  const beyondRetention: string[] = [];
  const onLedger = await mapLimit(envelopes, 8, (e) => lookUpEnvelope(client, e));
  envelopes.forEach((env, i) => {
    const { found, oldestLedger } = onLedger[i]!;
    const firstLedger = env.ledger ?? env.firstLedger ?? 0;
    if (!found && firstLedger < oldestLedger) {
      beyondRetention.push(env.hash);
      if (env.status === 'pending' || env.status === 'submitted') discrepancies.push(`envelope ${env.hash}: still ${env.status}, and its ledgers have left the ledger API's history window (from ledger ${oldestLedger}): only an operator can settle it`);
      return;
    }
    if (env.status === 'confirmed' && !found?.successful) discrepancies.push(`envelope ${env.hash}: confirmed in the journal, ${found ? 'failed' : 'absent'} on the ledger`);
    if (env.status === 'failed' && found?.successful) discrepancies.push(`envelope ${env.hash}: failed in the journal, applied on the ledger (ledger ${found.ledger})`);
    if (env.status === 'pending' || env.status === 'submitted') discrepancies.push(`envelope ${env.hash}: still ${env.status}, outcome not settled`);
  });
  const envelopeById = new Map(envelopes.map((e) => [e.id, e]));
  for (const entry of entries) {
    const env = entry.envelopeId ? envelopeById.get(entry.envelopeId) : undefined;
    if (entry.status === 'confirmed' && env?.status !== 'confirmed') discrepancies.push(`entry ${entry.id} (${entry.kind}): confirmed, but its envelope is ${env?.status ?? 'missing'}`);
    if (entry.status !== 'confirmed' && env?.status === 'confirmed') discrepancies.push(`entry ${entry.id} (${entry.kind}): ${entry.status}, but its envelope is confirmed`);
    if (entry.status === 'pending' || entry.status === 'submitted') discrepancies.push(`entry ${entry.id} (${entry.kind}): still ${entry.status}`);
  }

  // Ledgers the follower could not read: until an operator resolves them, the records may miss movements.
  for (const gap of await input.movements.openGaps()) {
    discrepancies.push(`ledger history gap ${gap.id}: ledgers ${gap.firstLedger}-${gap.lastLedger} were beyond the ledger API's history window when the follower reached them; movements in them may be missing from the records (resolve: npm run ledger:audit -- --resolve-gap ${gap.id} --note TEXT)`);
  }

  // Movements against records.
  const walletKeys = await input.wallets.allPublicKeys();
  const followed = await input.movements.all();
  const token = { code: input.asset.getCode() };
  // What each followed movement did to the token: arrived at `to` and left `from` (a path payment may differ on its two sides).
  const tokenIn = (m: MovementRow) => (m.assetCode === token.code ? m.amountStroops : 0n);
  const tokenOut = (m: MovementRow) => ((m.sentAssetCode ?? m.assetCode) === token.code ? (m.sentStroops ?? m.amountStroops) : 0n);
  const serviceAccounts = new Set([input.distribution, ...walletKeys]);
  const payments = new Map<string, { hash: string; from: string; to: string; amount: string }>();
  // Stellar RPC keeps no payment index: there the journal is the record, checked against balances below.
  const listPayments = client.tokenPaymentsOf?.bind(client);
  const lists = listPayments ? await mapLimit([...serviceAccounts], 8, (key) => listPayments(key, input.asset)) : [];
  for (const list of lists) for (const p of list) payments.set(p.id, p);
  const confirmed = entries.filter((e) => e.status === 'confirmed' && tokenKinds.has(e.kind));
  const keyOf = (hash: string, from: string, to: string, stroops: bigint) => `${hash} ${from} -> ${to} ${formatStroops(stroops)}`;
  const counts = new Map<string, { ledger: number; journal: number }>();
  const bump = (key: string, side: 'ledger' | 'journal') => {
    const c = counts.get(key) ?? { ledger: 0, journal: 0 };
    c[side]++;
    counts.set(key, c);
  };
  // The ledger names a fee-bumped payment by the fee bump's hash; the journal by its inner hash.
  const innerHashOf = new Map(envelopes.filter((e) => e.outerHash).map((e) => [e.outerHash!, e.hash]));
  for (const p of payments.values()) bump(keyOf(innerHashOf.get(p.hash) ?? p.hash, p.from, p.to, parseTokenAmount(p.amount) ?? 0n), 'ledger');
  // Only what the API still holds can be listed: a Horizon that pruned its history no longer lists older payments.
  const heldFrom = listPayments ? (await client.health()).oldestLedger : 0;
  for (const e of confirmed) if ((e.ledger ?? heldFrom) >= heldFrom) bump(keyOf(e.ledgerTransactionId, e.fromPublicKey, e.toPublicKey, e.amountStroops), 'journal');
  // Horizon lists payments and path payments by what arrived; a clawback is no payment.
  for (const m of followed) if (m.ledger >= heldFrom && !burns(m.operationType) && tokenIn(m) > 0n) bump(keyOf(m.ledgerTransactionId, m.fromPublicKey, m.toPublicKey, tokenIn(m)), 'journal');
  for (const [key, c] of listPayments ? counts : []) {
    if (c.ledger !== c.journal) discrepancies.push(`payment ${key}: ${c.ledger} on the ledger, ${c.journal} recorded (journal entries and followed movements)`);
  }

  // Balances against records, and the supply. A clawback is no payment on the ledger (the issuer
  // burns the tokens): it counts against its wallet's records and the supply, not in the match above.
  const burnKinds = kinds.withSupply('burnt');
  const clawedBack = entries.filter((e) => e.status === 'confirmed' && burnKinds.has(e.kind));
  let held = 0n;
  for (const key of walletKeys) {
    const account = await client.loadAccount(key, input.asset);
    const line = account ? balanceOf(account, input.asset) : undefined;
    const onChain = line ? (parseTokenAmount(line.balance) ?? 0n) : 0n;
    held += onChain;
    const journaled = [...confirmed, ...clawedBack].reduce((sum, e) => sum + (e.toPublicKey === key ? e.amountStroops : 0n) - (e.fromPublicKey === key ? e.amountStroops : 0n), 0n);
    const recorded = followed.reduce((sum, m) => sum + (m.toPublicKey === key ? tokenIn(m) : 0n) - (m.fromPublicKey === key ? tokenOut(m) : 0n), journaled);
    if (onChain !== recorded) discrepancies.push(`wallet ${key}: holds ${formatStroops(onChain)} on the ledger, its records sum to ${formatStroops(recorded)}`);
  }
  const distribution = await client.loadAccount(input.distribution, input.asset);
  const distributionLine = distribution ? balanceOf(distribution, input.asset) : undefined;
  held += distributionLine ? (parseTokenAmount(distributionLine.balance) ?? 0n) : 0n;
  const issueKinds = kinds.withSupply('issued');
  const transferKinds = kinds.withSupply('sent');
  const issued = confirmed.filter((e) => issueKinds.has(e.kind)).reduce((sum, e) => sum + e.amountStroops, 0n) - clawedBack.reduce((sum, e) => sum + e.amountStroops, 0n);
  // What each outside account holds of what the service issued: sent to it by transfers and
  // followed movements, less what it paid back into the service's accounts.
  const outside = new Map<string, bigint>();
  const toOutside = (account: string, stroops: bigint) => outside.set(account, (outside.get(account) ?? 0n) + stroops);
  for (const e of confirmed) if (transferKinds.has(e.kind) && !serviceAccounts.has(e.toPublicKey)) toOutside(e.toPublicKey, e.amountStroops);
  for (const m of followed) {
    const fromHeld = serviceAccounts.has(m.fromPublicKey);
    const toHeld = serviceAccounts.has(m.toPublicKey);
    if (burns(m.operationType)) continue; // burnt: counted with the clawbacks above only when the service wrote it
    if (fromHeld && !toHeld) toOutside(m.toPublicKey, tokenOut(m));
    if (!fromHeld && toHeld) toOutside(m.fromPublicKey, -tokenIn(m));
  }
  const sentOutside = [...outside.values()].reduce((sum, v) => sum + v, 0n);
  if (issued !== held + sentOutside) {
    const named = [...outside].filter(([, v]) => v !== 0n).map(([account, v]) => `${account} ${formatStroops(v)}`).join(', ');
    discrepancies.push(`supply: ${formatStroops(issued)} issued (less what clawbacks burnt), but the distribution account and wallets hold ${formatStroops(held)} and outside accounts ${formatStroops(sentOutside)}${named ? ` (${named})` : ''}`);
  }

  // Payments three ways: the provider's successes, the payments, and their confirmed mints.
  const paymentAudit = await auditPayments({
    provider: input.provider,
    payments: input.payments,
    entries,
    mintKinds: kinds.claiming('payment'),
    now: new Date(),
    inFlightGraceMs: input.inFlightGraceMs ?? IN_FLIGHT_GRACE_MS,
  });
  discrepancies.push(...paymentAudit.discrepancies);

  // Reversals against clawbacks and debts: every reversal's tokens taken back by one confirmed
  // clawback or owed, and every charge the provider reversed after its mint recorded as reversed.
  discrepancies.push(...auditReversals({ reversals: await input.reversals.all(), payments: paymentAudit.payments, entries, clawbackKinds: kinds.claiming('reversal'), providerStatus: paymentAudit.providerStatus }));

  // Withdrawals three ways: every debit paid out once at the provider or refunded once, no
  // reference paid twice, every transfer of ours a withdrawal's. The withdrawals are read after the
  // entries and the provider after the withdrawals, so each read already holds what the one before
  // it saw recorded (a confirmed entry moved its withdrawal in the same transaction).
  const withdrawals = await input.withdrawals.all();
  const transfers: ProviderTransfer[] = [];
  for await (const transfer of input.provider.allTransfers()) transfers.push(transfer);
  const withdrawalAudit = auditWithdrawals({
    withdrawals,
    entries,
    debitKinds: kinds.claiming('withdrawal debit'),
    refundKinds: kinds.claiming('withdrawal refund'),
    transfers,
    now: new Date(),
    inFlightGraceMs: input.inFlightGraceMs ?? IN_FLIGHT_GRACE_MS,
  });
  discrepancies.push(...withdrawalAudit.discrepancies);

  return {
    discrepancies,
    checked: {
      envelopes: envelopes.length,
      entries: entries.length,
      ledgerPayments: payments.size,
      followedMovements: followed.length,
      wallets: walletKeys.length,
      mintedPayments: paymentAudit.mintedPayments,
      providerTransactions: paymentAudit.providerTransactions,
      withdrawals: withdrawals.length,
      providerTransfers: transfers.length,
    },
    beyondRetention,
    inFlight: paymentAudit.inFlight,
    withdrawalsInFlight: withdrawalAudit.inFlight,
  };
}

/**
 * An envelope on the ledger under its inner hash or any fee bump hash the journal stored for it,
 * and where the API's history starts (the largest oldestLedger among its answers).
 */
async function lookUpEnvelope(client: LedgerApi, env: EnvelopeRow): Promise<{ found: FoundTransaction | undefined; oldestLedger: number }> {
  let oldestLedger = 0;
  const hashes = new Set([env.hash, ...(env.outerHash ? [env.outerHash] : []), ...env.priorOuterHashes]);
  for (const hash of hashes) {
    const lookup = await client.lookupTransaction(hash);
    if (lookup.kind === 'found') return { found: lookup.transaction, oldestLedger };
    oldestLedger = Math.max(oldestLedger, lookup.oldestLedger);
  }
  return { found: undefined, oldestLedger };
}

async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]!);
      }
    }),
  );
  return results;
}
