import type { Operation } from '@stellar/stellar-sdk';
import type { ThresholdLevel } from '../signature-checker';
import { applyChangeTrust, checkChangeTrust } from './change-trust';
import { applyCreateAccount, checkCreateAccount } from './create-account';
import { type OperationContext } from './operation-context';
import { applyPayment, checkPayment } from './payment';
import { applySetOptions, checkSetOptions, setOptionsThreshold } from './set-options';

export { OP_SUCCESS, type OperationContext } from './operation-context';

/**
 * The four operations the sandbox implements. Everything else answers op_not_supported, at
 * validation time, exactly where stellar-core reports an operation its protocol does not know.
 */

export function operationThreshold(op: Operation): ThresholdLevel {
  return op.type === 'setOptions' ? setOptionsThreshold(op) : 'med';
}

/** Checks that need no ledger state (stellar-core's doCheckValid). */
export function checkOperation(op: Operation, source: string): string {
  switch (op.type) {
    case 'createAccount':
      return checkCreateAccount(op, source);
    case 'payment':
      return checkPayment(op);
    case 'changeTrust':
      return checkChangeTrust(op, source);
    case 'setOptions':
      return checkSetOptions(op, source);
    default:
      return 'op_not_supported';
  }
}

export function applyOperation(op: Operation, context: OperationContext): string {
  switch (op.type) {
    case 'createAccount':
      return applyCreateAccount(op, context);
    case 'payment':
      return applyPayment(op, context);
    case 'changeTrust':
      return applyChangeTrust(op, context);
    case 'setOptions':
      return applySetOptions(op, context);
    default:
      return 'op_not_supported';
  }
}
