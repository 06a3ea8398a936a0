import type { Operation, xdr } from '@stellar/stellar-sdk';
import type { ThresholdLevel } from '../signature-checker';
import { applyAccountMerge, checkAccountMerge } from './account-merge';
import { applyChangeTrust, checkChangeTrust } from './change-trust';
import { applyClawback, checkClawback } from './clawback';
import { applyCreateAccount, checkCreateAccount } from './create-account';
import { OP_SUCCESS, type AppliedOperation, type OperationContext } from './operation-context';
import {
  applyPathPaymentStrictReceive,
  applyPathPaymentStrictSend,
  checkPathPaymentStrictReceive,
  checkPathPaymentStrictSend,
} from './path-payment';
import { applyPayment, checkPayment } from './payment';
import { applyRevokeSponsorship, checkRevokeSponsorship, isRevokeSponsorship } from './revoke-sponsorship';
import { applySetOptions, checkSetOptions, setOptionsThreshold } from './set-options';
import { applySetTrustLineFlags, checkSetTrustLineFlags } from './set-trust-line-flags';
import { applyBeginSponsoring, applyEndSponsoring, checkBeginSponsoring } from './sponsor-future-reserves';

export { ActiveSponsorships } from './active-sponsorships';
export { OP_SUCCESS, type AppliedOperation, type OperationContext, type PaymentDelivered } from './operation-context';

/**
 * The operations the sandbox implements: accounts, payments (and path payments that cross no offer),
 * trustlines, signers and options, sponsored reserves, merges, and an issuer's control of its asset
 * (set_trust_line_flags, clawback). Everything else answers op_not_supported, at validation time,
 * exactly where stellar-core reports an operation its protocol does not know.
 */

export function operationThreshold(op: Operation): ThresholdLevel {
  if (op.type === 'setOptions') return setOptionsThreshold(op);
  // deleting the account is as sensitive as changing who may sign for it
  if (op.type === 'accountMerge') return 'high';
  // core: authorizing or freezing a holder is a low-threshold act, like allow_trust before it
  if (op.type === 'setTrustLineFlags') return 'low';
  return 'med';
}

/**
 * Checks that need no ledger state (stellar-core's doCheckValid). `encoded` gives the operation as
 * the envelope holds it, for the few checks on bits the SDK's decoded form leaves out.
 */
export function checkOperation(op: Operation, source: string, encoded: () => xdr.Operation): string {
  if (isRevokeSponsorship(op)) return checkRevokeSponsorship(op);
  switch (op.type) {
    case 'createAccount':
      return checkCreateAccount(op, source);
    case 'payment':
      return checkPayment(op);
    case 'pathPaymentStrictReceive':
      return checkPathPaymentStrictReceive(op);
    case 'pathPaymentStrictSend':
      return checkPathPaymentStrictSend(op);
    case 'changeTrust':
      return checkChangeTrust(op, source);
    case 'setOptions':
      return checkSetOptions(op, source);
    case 'accountMerge':
      return checkAccountMerge(op, source);
    case 'beginSponsoringFutureReserves':
      return checkBeginSponsoring(op, source);
    case 'endSponsoringFutureReserves':
      return OP_SUCCESS;
    case 'clawback':
      return checkClawback(op, source);
    case 'setTrustLineFlags':
      return checkSetTrustLineFlags(op, source, encoded());
    default:
      return 'op_not_supported';
  }
}

export function applyOperation(op: Operation, context: OperationContext): AppliedOperation {
  if (isRevokeSponsorship(op)) return { code: applyRevokeSponsorship(op, context) };
  switch (op.type) {
    case 'createAccount':
      return { code: applyCreateAccount(op, context) };
    case 'payment':
      return { code: applyPayment(op, context) };
    case 'pathPaymentStrictReceive':
      return applyPathPaymentStrictReceive(op, context);
    case 'pathPaymentStrictSend':
      return applyPathPaymentStrictSend(op, context);
    case 'changeTrust':
      return { code: applyChangeTrust(op, context) };
    case 'setOptions':
      return { code: applySetOptions(op, context) };
    case 'accountMerge':
      return applyAccountMerge(op, context);
    case 'beginSponsoringFutureReserves':
      return { code: applyBeginSponsoring(op, context) };
    case 'endSponsoringFutureReserves':
      return { code: applyEndSponsoring(context) };
    case 'clawback':
      return { code: applyClawback(op, context) };
    case 'setTrustLineFlags':
      return { code: applySetTrustLineFlags(op, context) };
    default:
      return { code: 'op_not_supported' };
  }
}
