import { withdrawalDebitRefused, withdrawalDebitStarted, withdrawalDebitsConfirmed } from '../../db/repositories/withdrawal.repository';
import { type EntryKind, jobOf, operationRefusalIsFinal } from './entry-kind';
import { tokenPayment } from './transfer';

/** A withdrawal's tokens out of the user's wallet (`from`), back to the distribution account: takes the withdrawal (requested -> debiting), once. */
export interface WithdrawalDebitCommand {
  kind: 'withdrawal';
  withdrawalId: string;
  userId: string;
  from: string;
  stroops: bigint;
}

export function withdrawalDebitCommand(command: Omit<WithdrawalDebitCommand, 'kind'>): WithdrawalDebitCommand {
  return { kind: 'withdrawal', ...command };
}

/**
 * The first half of a cash-out: the tokens leave the wallet before any Naira is asked for. They go
 * back to the distribution account (not burnt at the issuer: a payment works for every wallet,
 * clawback only for trustlines made after the issuer enabled it, and the tokens return to the
 * stock purchases are minted from). Signed by the wallet's own key through its one queue, like a
 * transfer. It claims its withdrawal in the committing transaction; the service finishes it; a
 * refusal of its own payment (the wallet spent the tokens meanwhile) ends the withdrawal with
 * nothing taken, a refusal of the whole transaction rides again. Confirmed, the payout is due.
 */
export const withdrawalDebit: EntryKind<WithdrawalDebitCommand> = {
  name: 'withdrawal',
  record: true,
  mustFinish: true,
  supply: 'minted',
  claim: { of: 'withdrawal debit', take: (tx, entry) => withdrawalDebitStarted(tx, entry.withdrawalId!) },
  async prepare(command, { ledger }) {
    const to = ledger.keys.distribution.publicKey();
    const entry = { kind: 'withdrawal' as const, userId: command.userId, fromPublicKey: command.from, toPublicKey: to, amountStroops: command.stroops, assetCode: ledger.asset.getCode(), withdrawalId: command.withdrawalId };
    return { entry };
  },
  async job(entry, { ledger, walletKey, walletSubmitter }) {
    const wallet = await walletKey(entry.fromPublicKey);
    return jobOf(walletSubmitter(wallet), entry, [tokenPayment(ledger.asset, entry.toPublicKey, entry.amountStroops)]);
  },
  refusal: operationRefusalIsFinal,
  async confirmed(tx, entries, _hash, events) {
    await withdrawalDebitsConfirmed(tx, events, entries.flatMap((e) => (e.withdrawalId ? [e.withdrawalId] : [])));
  },
  async failed(tx, entries, events) {
    for (const e of entries) if (e.withdrawalId) await withdrawalDebitRefused(tx, events, e.withdrawalId, e.failureCode ?? 'unknown');
  },
};
