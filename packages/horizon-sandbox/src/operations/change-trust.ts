import { Asset, type Operation } from '@stellar/stellar-sdk';
import { parseAmount } from '../amounts';
import {
  AUTH_CLAWBACK_ENABLED_FLAG,
  AUTH_REQUIRED_FLAG,
  TRUSTLINE_AUTHORIZED_FLAG,
  TRUSTLINE_CLAWBACK_ENABLED_FLAG,
  assetKey,
} from '../ledger-rules';
import { releaseSubentry, reserveNewSubentry } from './entry-reserves';
import { OP_SUCCESS, type OperationContext } from './operation-context';

export function checkChangeTrust(op: Operation.ChangeTrust, source: string): string {
  // liquidity pool share trustlines need pools, which the sandbox does not have
  if (!(op.line instanceof Asset)) return 'op_not_supported';
  if (op.line.isNative()) return 'op_malformed';
  if (parseAmount(op.limit) < 0n) return 'op_malformed';
  // protocol >= 16: an issuer trusting its own asset is malformed (it already holds it without limit)
  if (op.line.getIssuer() === source) return 'op_malformed';
  return OP_SUCCESS;
}

/**
 * Creates, re-limits or (limit 0) removes a trustline; each line is one subentry costing a base
 * reserve, paid by the account sponsoring the source in this transaction if there is one.
 */
export function applyChangeTrust(op: Operation.ChangeTrust, context: OperationContext): string {
  const { delta, source } = context;
  const asset = op.line as Asset;
  const account = delta.write(source);
  if (!account) return 'op_no_source_account';
  const key = assetKey(asset.getCode(), asset.getIssuer());
  const limit = parseAmount(op.limit);
  const existing = account.trustlines.get(key);

  if (existing) {
    // also what removing a line that still holds a balance gets
    if (limit < existing.balance) return 'op_invalid_limit';
    if (limit === 0n) {
      account.trustlines.delete(key);
      releaseSubentry(delta, account, existing.sponsor);
      return OP_SUCCESS;
    }
    existing.limit = limit;
    existing.lastModifiedLedger = delta.ledgerSequence;
    return OP_SUCCESS;
  }

  if (limit === 0n) return 'op_invalid_limit';
  const issuer = delta.read(asset.getIssuer());
  if (!issuer) return 'op_no_issuer';
  const reserve = reserveNewSubentry(context, account);
  if (reserve.code !== OP_SUCCESS) return reserve.code;
  account.trustlines.set(key, {
    code: asset.getCode(),
    issuer: asset.getIssuer(),
    balance: 0n,
    limit,
    flags: initialTrustlineFlags(issuer.flags),
    lastModifiedLedger: delta.ledgerSequence,
    ...(reserve.sponsor !== undefined ? { sponsor: reserve.sponsor } : {}),
  });
  return OP_SUCCESS;
}

/**
 * A new line takes the issuer's rules as they are now, once: authorized unless the issuer requires
 * authorization, and clawback-enabled only if the issuer has AUTH_CLAWBACK_ENABLED at this moment.
 * A line created before the issuer enabled clawback stays out of its reach for good (CAP-35).
 */
function initialTrustlineFlags(issuerFlags: number): number {
  let flags = 0;
  if ((issuerFlags & AUTH_REQUIRED_FLAG) === 0) flags |= TRUSTLINE_AUTHORIZED_FLAG;
  if ((issuerFlags & AUTH_CLAWBACK_ENABLED_FLAG) !== 0) flags |= TRUSTLINE_CLAWBACK_ENABLED_FLAG;
  return flags;
}
