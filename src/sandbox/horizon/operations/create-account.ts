import type { Operation } from '@stellar/stellar-sdk';
import { parseAmount } from '../amounts';
import { minimumBalance, spendableNative } from '../ledger-rules';
import { newAccount } from '../ledger-state';
import { OP_SUCCESS, type OperationContext } from './operation-context';

export function checkCreateAccount(op: Operation.CreateAccount, source: string): string {
  // protocol >= 14 allows a zero starting balance (for sponsored accounts); it fails later on the reserve
  if (parseAmount(op.startingBalance) < 0n) return 'op_malformed';
  if (op.destination === source) return 'op_malformed';
  return OP_SUCCESS;
}

/** Same order of checks as stellar-core: existence, then the new account's reserve, then the funder's balance. */
export function applyCreateAccount(op: Operation.CreateAccount, { delta, source }: OperationContext): string {
  if (delta.exists(op.destination)) return 'op_already_exists';
  const startingBalance = parseAmount(op.startingBalance);
  const created = newAccount(op.destination, startingBalance, delta.ledgerSequence, delta.closeTime);
  if (startingBalance < minimumBalance(created)) return 'op_low_reserve';
  const funder = delta.write(source);
  if (!funder || spendableNative(funder) < startingBalance) return 'op_underfunded';
  funder.balance -= startingBalance;
  delta.create(created);
  return OP_SUCCESS;
}
