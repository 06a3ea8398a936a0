import type { Operation } from '@stellar/stellar-sdk';
import { baseAccountId } from '../account-ids';
import { MAX_INT64 } from '../amounts';
import { AUTH_IMMUTABLE_FLAG } from '../ledger-rules';
import { releaseAccountEntry, releaseSubentry } from './entry-reserves';
import { OP_SUCCESS, type AppliedOperation, type OperationContext } from './operation-context';

export function checkAccountMerge(op: Operation.AccountMerge, source: string): string {
  return baseAccountId(op.destination) === source ? 'op_malformed' : OP_SUCCESS;
}

/**
 * Deletes the source account and credits its whole XLM balance to the destination, in stellar-core's
 * order of checks (MergeOpFrame, protocol >= 16). Signers go with the account; every reserve it
 * held for itself goes back to whoever paid it.
 */
export function applyAccountMerge(op: Operation.AccountMerge, context: OperationContext): AppliedOperation {
  const { delta, source, sponsorships } = context;
  const destinationId = baseAccountId(op.destination);
  const receiver = delta.read(destinationId);
  if (!receiver) return { code: 'op_no_account' };
  const merged = delta.read(source);
  if (!merged) return { code: 'op_no_source_account' };
  // AUTH_IMMUTABLE promises holders of the account's assets that its issuer never goes away
  if ((merged.flags & AUTH_IMMUTABLE_FLAG) !== 0) return { code: 'op_immutable_set' };
  // signers are removed with the account; trustlines must be removed first, by their owner
  if (merged.subentryCount !== merged.signers.length) return { code: 'op_has_sub_entries' };
  // a recreated account starts at (ledger << 32); merging a sequence at or past that would let it go backwards
  if (merged.sequence >= BigInt(delta.ledgerSequence) << 32n) return { code: 'op_seqnum_too_far' };
  // others' entries still count on its reserves, in the ledger or in this transaction
  if (merged.numSponsoring > 0 || sponsorships.isSponsoring(source)) return { code: 'op_is_sponsor' };
  if (receiver.balance + merged.balance > MAX_INT64) return { code: 'op_dest_full' };

  const account = delta.write(source);
  const destination = delta.write(destinationId);
  if (!account || !destination) throw new Error('accounts read a moment ago are missing');
  for (const signer of account.signers) releaseSubentry(delta, account, signer.sponsor);
  account.signers = [];
  releaseAccountEntry(delta, account);
  destination.balance += account.balance;
  delta.delete(source);
  return { code: OP_SUCCESS, sourceAccountBalance: account.balance };
}
