import { anyRefusalIsFinal, type EntryKind, jobOf } from './entry-kind';
import { tokenPayment } from './transfer';

/** An admin's mint to a user's wallet (`to`), from the distribution account. */
export interface AdminMintCommand {
  kind: 'admin_mint';
  userId: string;
  to: string;
  stroops: bigint;
}

export function adminMintCommand(command: Omit<AdminMintCommand, 'kind'>): AdminMintCommand {
  return { kind: 'admin_mint', ...command };
}

/** An admin's mint: in the distribution account's batches; any refusal is the answer (the admin asks again). */
export const adminMint: EntryKind<AdminMintCommand> = {
  name: 'admin_mint',
  record: true,
  mustFinish: false,
  supply: 'minted',
  async prepare(command, { ledger }) {
    const from = ledger.keys.distribution.publicKey();
    return { entry: { kind: 'admin_mint', userId: command.userId, fromPublicKey: from, toPublicKey: command.to, amountStroops: command.stroops, assetCode: ledger.asset.getCode() } };
  },
  async job(entry, { ledger }) {
    return jobOf(ledger.distribution, entry, [tokenPayment(ledger.asset, entry.toPublicKey, entry.amountStroops)]);
  },
  refusal: anyRefusalIsFinal,
};
