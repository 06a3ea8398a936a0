import { withdrawalRefundRefused, withdrawalRefundStarted, withdrawalRefundsConfirmed } from '../../db/repositories/withdrawal.repository';
import { REFUND_RETRY_MS } from '../../domain/withdrawal-lifecycle';
import { NEVER_SUCCEEDS, jobOf, type EntryKind } from './entry-kind';
import { tokenPayment } from './transfer';

/** A withdrawal's tokens given back to the wallet (`to`) it took them from: takes the withdrawal (refund_due -> refunding), once. */
export interface WithdrawalRefundCommand {
  kind: 'withdrawal_refund';
  withdrawalId: string;
  userId: string;
  to: string;
  stroops: bigint;
}

export function withdrawalRefundCommand(command: Omit<WithdrawalRefundCommand, 'kind'>): WithdrawalRefundCommand {
  return { kind: 'withdrawal_refund', ...command };
}

/**
 * The tokens of a withdrawal whose Naira never went out, or came back (failed, reversed,
 * abandoned, blocked, rejected, an admin's cancel), from the distribution account to the wallet
 * they left. It claims its withdrawal in the committing transaction (one live refund per
 * withdrawal: the claim, and the partial unique index behind it); the service finishes it, and
 * only a refusal that trying again never mends fails it, after which the sweep writes it again.
 */
export const withdrawalRefund: EntryKind<WithdrawalRefundCommand> = {
  name: 'withdrawal_refund',
  record: true,
  mustFinish: true,
  supply: 'minted',
  claim: { of: 'withdrawal refund', take: (tx, entry) => withdrawalRefundStarted(tx, entry.withdrawalId!) },
  async prepare(command, { ledger }) {
    const from = ledger.keys.distribution.publicKey();
    const entry = { kind: 'withdrawal_refund' as const, userId: command.userId, fromPublicKey: from, toPublicKey: command.to, amountStroops: command.stroops, assetCode: ledger.asset.getCode(), withdrawalId: command.withdrawalId };
    return { entry };
  },
  async job(entry, { ledger }) {
    return jobOf(ledger.distribution, entry, [tokenPayment(ledger.asset, entry.toPublicKey, entry.amountStroops)]);
  },
  refusal: (code) => (code !== undefined && NEVER_SUCCEEDS.has(code) ? 'final' : 'again'),
  async confirmed(tx, entries, _hash, events) {
    await withdrawalRefundsConfirmed(tx, events, entries.flatMap((e) => (e.withdrawalId ? [e.withdrawalId] : [])));
  },
  async failed(tx, entries) {
    for (const e of entries) if (e.withdrawalId) await withdrawalRefundRefused(tx, e.withdrawalId, e.failureCode ?? 'unknown', REFUND_RETRY_MS);
  },
};
