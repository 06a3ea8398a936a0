import { anyRefusalIsFinal, approvalClaim, type EntryKind, jobOf } from './entry-kind';
import { tokenPayment } from './transfer';

/** An admin's mint to a user's wallet (`to`), from the distribution account; above MINT_APPROVAL_THRESHOLD, the approval it was approved as. */
export interface AdminMintCommand {
  kind: 'admin_mint';
  userId: string;
  to: string;
  stroops: bigint;
  approvalId?: string;
}

export function adminMintCommand(command: Omit<AdminMintCommand, 'kind'>): AdminMintCommand {
  return { kind: 'admin_mint', ...command };
}

/**
 * An admin's mint: in the distribution account's batches; any refusal is the answer (the admin
 * asks again). One approved by a second admin claims its approval (written once).
 */
export const adminMint: EntryKind<AdminMintCommand> = {
  name: 'admin_mint',
  record: true,
  mustFinish: false,
  supply: 'minted',
  claim: approvalClaim,
  async prepare(command, { ledger }) {
    const from = ledger.keys.distribution.publicKey();
    const entry = { kind: 'admin_mint' as const, userId: command.userId, fromPublicKey: from, toPublicKey: command.to, amountStroops: command.stroops, assetCode: ledger.asset.getCode(), approvalId: command.approvalId };
    return { entry };
  },
  async job(entry, { ledger }) {
    return jobOf(ledger.distribution, entry, [tokenPayment(ledger.asset, entry.toPublicKey, entry.amountStroops)]);
  },
  refusal: anyRefusalIsFinal,
};
