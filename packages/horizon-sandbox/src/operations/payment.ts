import type { Operation } from '@stellar/stellar-sdk';
import { baseAccountId } from '../account-ids';
import { MAX_INT64, parseAmount } from '../amounts';
import { assetKey, isAuthorizedLine, spendableNative } from '../ledger-rules';
import { OP_SUCCESS, type OperationContext } from './operation-context';

export function checkPayment(op: Operation.Payment): string {
  return parseAmount(op.amount) > 0n ? OP_SUCCESS : 'op_malformed';
}

/**
 * stellar-core runs a payment as a path payment with an empty path: the destination is credited
 * first, then the source is debited, and the first check that fails names the result. The issuer of
 * an asset is special on both ends: paying from it mints, paying to it burns, and neither needs a
 * trustline. Every other end needs a trustline with AUTHORIZED (maintain-liabilities only keeps).
 */
export function applyPayment(op: Operation.Payment, { delta, source }: OperationContext): string {
  const destination = baseAccountId(op.destination);
  const amount = parseAmount(op.amount);
  const asset = op.asset;

  if (asset.isNative()) {
    if (destination === source) return OP_SUCCESS;
    const receiver = delta.write(destination);
    if (!receiver) return 'op_no_destination';
    if (receiver.balance + amount > MAX_INT64) return 'op_line_full';
    receiver.balance += amount;
    const sender = delta.write(source);
    if (!sender || spendableNative(sender) < amount) return 'op_underfunded';
    sender.balance -= amount;
    return OP_SUCCESS;
  }

  const issuer = asset.getIssuer();
  const key = assetKey(asset.getCode(), issuer);
  if (destination !== issuer) {
    const receiver = delta.write(destination);
    if (!receiver) return 'op_no_destination';
    const line = receiver.trustlines.get(key);
    if (!line) return 'op_no_trust';
    // an issuer that deauthorized the line (set_trust_line_flags) or never authorized it (AUTH_REQUIRED)
    if (!isAuthorizedLine(line.flags)) return 'op_not_authorized';
    if (line.balance + amount > line.limit) return 'op_line_full';
    line.balance += amount;
    line.lastModifiedLedger = delta.ledgerSequence;
  }
  if (source !== issuer) {
    const sender = delta.write(source);
    const line = sender?.trustlines.get(key);
    if (!line) return 'op_src_no_trust';
    if (!isAuthorizedLine(line.flags)) return 'op_src_not_authorized';
    if (line.balance < amount) return 'op_underfunded';
    line.balance -= amount;
    line.lastModifiedLedger = delta.ledgerSequence;
  }
  return OP_SUCCESS;
}
