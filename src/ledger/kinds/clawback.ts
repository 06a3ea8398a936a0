import { Operation, type Asset, type xdr } from '@stellar/stellar-sdk';
import { clawbackRefused, clawbacksConfirmed, reversalClawbackStarted } from '../../db/repositories/reversal.repository';
import { formatStroops } from '../../domain/amounts';
import { type EntryKind, jobOf, operationRefusalIsFinal } from './entry-kind';

/** A reversed payment's tokens taken back from the buyer's wallet (`from`): takes the reversal (waiting -> clawing), once. */
export interface ClawbackCommand {
  kind: 'clawback';
  reversalId: string;
  userId: string;
  from: string;
  stroops: bigint;
}

export function clawbackCommand(command: Omit<ClawbackCommand, 'kind'>): ClawbackCommand {
  return { kind: 'clawback', ...command };
}

/**
 * The issuer takes tokens back from a wallet (CAP-35): they are burnt, not moved. It claims its
 * reversal in the committing transaction and the service finishes it; every refusal of its own
 * operation is an answer (the wallet spent the tokens, or its trustline predates clawback): the
 * reversal decides what comes next, a smaller clawback or a debt.
 */
export const clawback: EntryKind<ClawbackCommand> = {
  name: 'clawback',
  // Listed: tokens taken back leave the user's wallet, and the user's history shows it (CONTRACT 12).
  record: true,
  mustFinish: true,
  supply: 'burnt',
  claim: { of: 'reversal', take: (tx, entry) => reversalClawbackStarted(tx, entry.reversalId!, entry.id) },
  async prepare(command, { ledger }) {
    const issuer = ledger.keys.issuer.publicKey();
    const entry = { kind: 'clawback' as const, userId: command.userId, fromPublicKey: command.from, toPublicKey: issuer, amountStroops: command.stroops, assetCode: ledger.asset.getCode(), reversalId: command.reversalId };
    return { entry };
  },
  async job(entry, { ledger }) {
    // Only the issuer may take its token back: the issuer's batches.
    return jobOf(ledger.issuer, entry, [clawbackOperation(ledger.asset, entry.fromPublicKey, entry.amountStroops)]);
  },
  refusal: operationRefusalIsFinal,
  async confirmed(tx, entries) {
    await clawbacksConfirmed(tx, entries.map((e) => ({ reversalId: e.reversalId, entryId: e.id, amountStroops: e.amountStroops })));
  },
  async failed(tx, entries) {
    for (const e of entries) if (e.reversalId) await clawbackRefused(tx, e.reversalId, e.id, e.failureCode ?? 'unknown');
  },
};

export function clawbackOperation(asset: Asset, from: string, stroops: bigint): xdr.Operation {
  return Operation.clawback({ asset, from, amount: formatStroops(stroops) });
}
