import type { Asset, Operation } from '@stellar/stellar-sdk';
import { baseAccountId } from '../account-ids';
import { parseAmount } from '../amounts';
import { OP_SUCCESS, type AppliedOperation, type OperationContext } from './operation-context';
import { creditDestination, debitSource, paysItsIssuerDirectly } from './payment';

/**
 * path_payment_strict_receive and path_payment_strict_send as stellar-core applies them. The sandbox
 * has no order book and no liquidity pools, so the only path that can be walked is the one with no
 * hop: every asset along it equal to the one before (an empty path and the same asset at both ends,
 * which core moves directly, without crossing anything). Any real hop finds no offers to cross:
 * op_too_few_offers, exactly where core's convert() would report it.
 */

/** core's doCheckValid: both amounts must be positive. */
export function checkPathPaymentStrictReceive(op: Operation.PathPaymentStrictReceive): string {
  return parseAmount(op.destAmount) > 0n && parseAmount(op.sendMax) > 0n ? OP_SUCCESS : 'op_malformed';
}

export function checkPathPaymentStrictSend(op: Operation.PathPaymentStrictSend): string {
  return parseAmount(op.sendAmount) > 0n && parseAmount(op.destMin) > 0n ? OP_SUCCESS : 'op_malformed';
}

/**
 * The destination gets exactly destAmount: it is credited first, then the path is walked back to
 * the send asset, then the source pays what that cost (here destAmount itself), at most sendMax.
 */
export function applyPathPaymentStrictReceive(op: Operation.PathPaymentStrictReceive, { delta, source }: OperationContext): AppliedOperation {
  const destination = baseAccountId(op.destination);
  const amount = parseAmount(op.destAmount);
  if (!paysItsIssuerDirectly(op.sendAsset, op.destAsset, op.path, destination) && !delta.exists(destination)) {
    return { code: 'op_no_destination' };
  }
  const credited = creditDestination(delta, destination, op.destAsset, amount);
  if (credited !== OP_SUCCESS) return { code: credited };
  if (!isDirect(op.sendAsset, op.path, op.destAsset)) return { code: 'op_too_few_offers' };
  if (amount > parseAmount(op.sendMax)) return { code: 'op_over_source_max' };
  const debited = debitSource(delta, source, op.sendAsset, amount);
  if (debited !== OP_SUCCESS) return { code: debited };
  return { code: OP_SUCCESS, last: { destination, asset: op.destAsset, amount } };
}

/**
 * The source pays exactly sendAmount: it is debited first, then the path is walked to the
 * destination asset, then the destination is credited what came out (here sendAmount itself), at
 * least destMin.
 */
export function applyPathPaymentStrictSend(op: Operation.PathPaymentStrictSend, { delta, source }: OperationContext): AppliedOperation {
  const destination = baseAccountId(op.destination);
  const amount = parseAmount(op.sendAmount);
  if (!paysItsIssuerDirectly(op.sendAsset, op.destAsset, op.path, destination) && !delta.exists(destination)) {
    return { code: 'op_no_destination' };
  }
  const debited = debitSource(delta, source, op.sendAsset, amount);
  if (debited !== OP_SUCCESS) return { code: debited };
  if (!isDirect(op.sendAsset, op.path, op.destAsset)) return { code: 'op_too_few_offers' };
  if (amount < parseAmount(op.destMin)) return { code: 'op_under_dest_min' };
  const credited = creditDestination(delta, destination, op.destAsset, amount);
  if (credited !== OP_SUCCESS) return { code: credited };
  return { code: OP_SUCCESS, last: { destination, asset: op.destAsset, amount } };
}

/** core skips a hop whose asset equals the one before it; a path of nothing but skipped hops crosses no offer. */
function isDirect(sendAsset: Asset, path: readonly Asset[], destAsset: Asset): boolean {
  return [...path, destAsset].every((asset) => asset.equals(sendAsset));
}
