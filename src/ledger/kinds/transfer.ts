import { Operation, type Asset, type xdr } from '@stellar/stellar-sdk';
import { formatStroops } from '../../domain/amounts';
import { anyRefusalIsFinal, type EntryKind, jobOf } from './entry-kind';

/** Tokens from a user's wallet (`from`, its public key) to any account: its sealed secret is opened only to sign. */
export interface TransferCommand {
  kind: 'transfer';
  userId: string;
  from: string;
  to: string;
  stroops: bigint;
}

export function transferCommand(command: Omit<TransferCommand, 'kind'>): TransferCommand {
  return { kind: 'transfer', ...command };
}

/** A user's transfer: through the wallet's own submitter; any refusal is the answer (the user asks again). */
export const transfer: EntryKind<TransferCommand> = {
  name: 'transfer',
  record: true,
  mustFinish: false,
  supply: 'sent',
  async prepare(command, { ledger }) {
    return { entry: { kind: 'transfer', userId: command.userId, fromPublicKey: command.from, toPublicKey: command.to, amountStroops: command.stroops, assetCode: ledger.asset.getCode() } };
  },
  async job(entry, { ledger, walletKey, walletSubmitter }) {
    const wallet = await walletKey(entry.fromPublicKey);
    return jobOf(walletSubmitter(wallet), entry, [tokenPayment(ledger.asset, entry.toPublicKey, entry.amountStroops)]);
  },
  refusal: anyRefusalIsFinal,
};

/** A token payment (a transfer or a mint): from the envelope's acting account to `to`. */
export function tokenPayment(asset: Asset, to: string, stroops: bigint): xdr.Operation {
  return Operation.payment({ destination: to, asset, amount: formatStroops(stroops) });
}
