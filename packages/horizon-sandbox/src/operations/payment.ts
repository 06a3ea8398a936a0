import type { Asset, Operation } from '@stellar/stellar-sdk';
import { baseAccountId } from '../account-ids';
import { MAX_INT64, parseAmount } from '../amounts';
import type { LedgerDelta } from '../ledger-delta';
import { assetKey, isAuthorizedLine, spendableNative } from '../ledger-rules';
import { OP_SUCCESS, type OperationContext } from './operation-context';

export function checkPayment(op: Operation.Payment): string {
  return parseAmount(op.amount) > 0n ? OP_SUCCESS : 'op_malformed';
}

/**
 * stellar-core runs a payment as a path payment with an empty path (see path-payment.ts): the
 * destination is credited first, then the source is debited, and the first check that fails names
 * the result. Only a payment of lumens to oneself is settled before any check.
 */
export function applyPayment(op: Operation.Payment, { delta, source }: OperationContext): string {
  const destination = baseAccountId(op.destination);
  const amount = parseAmount(op.amount);
  if (op.asset.isNative() && destination === source) return OP_SUCCESS;
  if (!paysItsIssuerDirectly(op.asset, op.asset, [], destination) && !delta.exists(destination)) return 'op_no_destination';
  const credited = creditDestination(delta, destination, op.asset, amount);
  if (credited !== OP_SUCCESS) return credited;
  return debitSource(delta, source, op.asset, amount);
}

/**
 * core's shouldBypassIssuerCheck: an asset sent straight back to its issuer is burnt, so the issuer
 * account need not even exist; that is what keeps returning credit to an issuer always possible.
 */
export function paysItsIssuerDirectly(sendAsset: Asset, destAsset: Asset, path: readonly Asset[], destination: string): boolean {
  return !destAsset.isNative() && path.length === 0 && sendAsset.equals(destAsset) && destAsset.getIssuer() === destination;
}

/**
 * core's updateDestBalance. The issuer of an asset is special: paying it its own asset burns it and
 * needs no trustline. Every other holder needs a trustline with AUTHORIZED (maintain-liabilities only
 * keeps what it holds). The destination account exists: the caller checked it first, as core does.
 */
export function creditDestination(delta: LedgerDelta, destination: string, asset: Asset, amount: bigint): string {
  if (asset.isNative()) {
    const receiver = delta.write(destination);
    if (!receiver) return 'op_no_destination';
    if (receiver.balance + amount > MAX_INT64) return 'op_line_full';
    receiver.balance += amount;
    return OP_SUCCESS;
  }
  const issuer = asset.getIssuer();
  if (destination === issuer) return OP_SUCCESS;
  const receiver = delta.write(destination);
  if (!receiver) return 'op_no_destination';
  const line = receiver.trustlines.get(assetKey(asset.getCode(), issuer));
  if (!line) return 'op_no_trust';
  // an issuer that deauthorized the line (set_trust_line_flags) or never authorized it (AUTH_REQUIRED)
  if (!isAuthorizedLine(line.flags)) return 'op_not_authorized';
  if (line.balance + amount > line.limit) return 'op_line_full';
  line.balance += amount;
  line.lastModifiedLedger = delta.ledgerSequence;
  return OP_SUCCESS;
}

/** core's updateSourceBalance: the issuer pays its own asset without a balance (it mints). */
export function debitSource(delta: LedgerDelta, source: string, asset: Asset, amount: bigint): string {
  if (asset.isNative()) {
    const sender = delta.write(source);
    if (!sender || spendableNative(sender) < amount) return 'op_underfunded';
    sender.balance -= amount;
    return OP_SUCCESS;
  }
  const issuer = asset.getIssuer();
  if (source === issuer) return OP_SUCCESS;
  const sender = delta.write(source);
  const line = sender?.trustlines.get(assetKey(asset.getCode(), issuer));
  if (!line) return 'op_src_no_trust';
  if (!isAuthorizedLine(line.flags)) return 'op_src_not_authorized';
  if (line.balance < amount) return 'op_underfunded';
  line.balance -= amount;
  line.lastModifiedLedger = delta.ledgerSequence;
  return OP_SUCCESS;
}
