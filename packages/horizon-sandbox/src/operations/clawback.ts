import type { Operation } from '@stellar/stellar-sdk';
import { baseAccountId } from '../account-ids';
import { parseAmount } from '../amounts';
import { TRUSTLINE_CLAWBACK_ENABLED_FLAG, assetKey } from '../ledger-rules';
import { OP_SUCCESS, type OperationContext } from './operation-context';

/**
 * CAP-35's clawback: the issuer takes back (burns) some of its asset from a holder's trustline.
 * Only the issuer may, and only from a line that was clawback-enabled when it was created.
 */

/** core's doCheckValid, in its order: every failure here is MALFORMED. */
export function checkClawback(op: Operation.Clawback, source: string): string {
  // core compares the muxed `from` with the source as a plain account: an M address never matches
  if (op.from === source) return 'op_malformed';
  if (parseAmount(op.amount) < 1n) return 'op_malformed';
  if (op.asset.isNative()) return 'op_malformed';
  if (op.asset.getIssuer() !== source) return 'op_malformed';
  return OP_SUCCESS;
}

/**
 * Skips authorization on purpose (core's addBalanceSkipAuthorization): a frozen line can still be
 * clawed back. Underfunded when the balance is short; core also keeps the line's selling
 * liabilities, which are 0 here because the sandbox has no offers.
 */
export function applyClawback(op: Operation.Clawback, { delta }: OperationContext): string {
  const holder = delta.write(baseAccountId(op.from));
  const line = holder?.trustlines.get(assetKey(op.asset.getCode(), op.asset.getIssuer()));
  if (!line) return 'op_no_trust';
  if ((line.flags & TRUSTLINE_CLAWBACK_ENABLED_FLAG) === 0) return 'op_not_clawback_enabled';
  const amount = parseAmount(op.amount);
  if (line.balance < amount) return 'op_underfunded';
  // the stroops leave circulation: the issuer holds no balance of its own asset to credit
  line.balance -= amount;
  line.lastModifiedLedger = delta.ledgerSequence;
  return OP_SUCCESS;
}
