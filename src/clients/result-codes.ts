import { xdr } from '@stellar/stellar-sdk';
import { LedgerRejectedError } from './ledger-errors';

// Stellar RPC answers a refusal with a TransactionResult XDR, Horizon with `result_codes` strings.
// The service reasons in Horizon's strings (tx_bad_seq, op_underfunded...), so the RPC adapter
// reads them out of the XDR here, by the rule Horizon itself applies: the XDR enum's name in
// snake case, without its operation's prefix, with Horizon's few renamings.

const RENAMED: Record<string, string> = {
  tx_no_account: 'tx_no_source_account',
  op_no_account: 'op_no_source_account',
  op_already_exist: 'op_already_exists',
};

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function named(code: string): string {
  return RENAMED[code] ?? code;
}

/** txBadSeq -> tx_bad_seq. */
export function transactionCode(code: { name: string }): string {
  return named(snake(code.name));
}

/** One operation's result as Horizon's string: opInner's own result (paymentUnderfunded -> op_underfunded), or the outer code. */
export function operationCode(result: xdr.OperationResult): string {
  if (result.switch().name !== 'opInner') return named(snake(result.switch().name));
  const tr = result.tr();
  const operation = tr.switch().name; // payment, createAccount...
  const inner = (tr.value() as { switch(): { name: string } }).switch().name; // paymentUnderfunded
  const withoutPrefix = inner.startsWith(operation) ? inner.slice(operation.length) : inner;
  return named(`op${snake(withoutPrefix)}`);
}

/**
 * The refusal a TransactionResult describes. A fee bump refused because of its inner transaction
 * carries the inner codes (what the transaction does); one refused at the outer level is about its
 * fee source (who pays). `feeCharged` is the outer result's: for tx_insufficient_fee, the fee core wants.
 */
export function rejectionOf(result: xdr.TransactionResult, feeBump: boolean): LedgerRejectedError {
  const outer = result.result();
  const feeCharged = result.feeCharged().toBigInt();
  const outerName = outer.switch().name;
  if (outerName === 'txFeeBumpInnerFailed' || outerName === 'txFeeBumpInnerSuccess') {
    const inner = outer.innerResultPair().result().result();
    return new LedgerRejectedError(transactionCode(inner.switch()), operationsOf(inner), false, feeCharged);
  }
  return new LedgerRejectedError(transactionCode(outer.switch()), operationsOf(outer), feeBump, feeCharged);
}

function operationsOf(result: { switch(): { name: string }; results?: () => xdr.OperationResult[] }): string[] {
  const name = result.switch().name;
  if (name !== 'txFailed' && name !== 'txSuccess') return [];
  return (result.results?.() ?? []).map(operationCode);
}
