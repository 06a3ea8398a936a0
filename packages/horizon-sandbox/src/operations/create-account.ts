import type { Operation } from '@stellar/stellar-sdk';
import { parseAmount } from '../amounts';
import { spendableNative } from '../ledger-rules';
import { newAccount } from '../ledger-state';
import { reserveNewAccount } from './entry-reserves';
import { OP_SUCCESS, type OperationContext } from './operation-context';

export function checkCreateAccount(op: Operation.CreateAccount, source: string): string {
  // protocol >= 14 allows a zero starting balance (for sponsored accounts); it fails later on the reserve
  if (parseAmount(op.startingBalance) < 0n) return 'op_malformed';
  if (op.destination === source) return 'op_malformed';
  return OP_SUCCESS;
}

/**
 * Same order of checks as stellar-core: existence, then the new account's reserve (its sponsor's, if
 * one is active for it), then the funder's balance, which a funder sponsoring the account must cover
 * on top of the reserves it just took on.
 */
export function applyCreateAccount(op: Operation.CreateAccount, context: OperationContext): string {
  const { delta, source } = context;
  if (delta.exists(op.destination)) return 'op_already_exists';
  const startingBalance = parseAmount(op.startingBalance);
  const created = newAccount(op.destination, startingBalance, delta.ledgerSequence, delta.closeTime);
  const reserve = reserveNewAccount(context, created);
  if (reserve !== OP_SUCCESS) return reserve;
  const funder = delta.write(source);
  if (!funder || spendableNative(funder) < startingBalance) return 'op_underfunded';
  funder.balance -= startingBalance;
  delta.create(created);
  return OP_SUCCESS;
}
