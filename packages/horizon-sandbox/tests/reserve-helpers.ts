import {
  Keypair,
  Operation,
  TransactionBuilder,
  xdr,
  type FeeBumpTransaction,
  type Horizon,
  type Transaction,
} from '@stellar/stellar-sdk';
import { buildTransaction, submitExpectingFailure, type FailedSubmission, type LedgerClient } from './sandbox-harness';

/**
 * Helpers for the sponsorship and account_merge conformance tests. Money is compared as bigint
 * stroops parsed from Horizon's strings, never as floats: a float would hide a stroop.
 */

export const BASE_RESERVE = 5_000_000n;

/** "12.3456789" -> 123456789n, written here rather than borrowed from the sandbox it checks. */
export function stroops(amount: string): bigint {
  const match = /^(\d+)\.(\d{7})$/.exec(amount);
  if (!match) throw new Error(`not a Horizon amount: ${amount}`);
  return BigInt(match[1] ?? '') * 10_000_000n + BigInt(match[2] ?? '');
}

export function nativeStroops(account: Horizon.AccountResponse): bigint {
  const line = account.balances.find((balance) => balance.asset_type === 'native');
  if (!line) throw new Error(`${account.id} shows no native balance`);
  return stroops(line.balance);
}

/** Balance above the minimum of (2 + subentries + sponsoring - sponsored) base reserves, as Horizon shows it. */
export function spendableStroops(account: Horizon.AccountResponse): bigint {
  const reserves = 2n + BigInt(account.subentry_count) + BigInt(account.num_sponsoring) - BigInt(account.num_sponsored);
  return nativeStroops(account) - reserves * BASE_RESERVE;
}

/** The trustline balance line for CODE:ISSUER, with the `sponsor` Horizon adds when someone else pays its reserve. */
export function trustlineOf(
  account: Horizon.AccountResponse,
  code: string,
  issuer: string,
): Horizon.HorizonApi.BalanceLineAsset | undefined {
  for (const line of account.balances) {
    if (line.asset_type !== 'credit_alphanum4' && line.asset_type !== 'credit_alphanum12') continue;
    if (line.asset_code === code && line.asset_issuer === issuer) return line;
  }
  return undefined;
}

/** The begin ... end sandwich: every operation in between has its reserves paid by `sponsor`. */
export function sponsored(sponsor: string, sponsoredId: string, operations: xdr.Operation[]): xdr.Operation[] {
  return [
    Operation.beginSponsoringFutureReserves({ source: sponsor, sponsoredId }),
    ...operations,
    Operation.endSponsoringFutureReserves({ source: sponsoredId }),
  ];
}

/** The signed transaction creating `account` with 0 XLM, its two base reserves paid by `sponsor`. */
export function sponsoredCreation(harness: LedgerClient, sponsor: Keypair, account: Keypair): Promise<Transaction> {
  const create = Operation.createAccount({ destination: account.publicKey(), startingBalance: '0' });
  return buildTransaction(harness, sponsor, sponsored(sponsor.publicKey(), account.publicKey(), [create]), { signers: [sponsor, account] });
}

/** A new account holding nothing, its two base reserves paid by `sponsor`. */
export async function sponsoredAccount(harness: LedgerClient, sponsor: Keypair): Promise<Keypair> {
  const account = Keypair.random();
  await harness.horizon.submitTransaction(await sponsoredCreation(harness, sponsor, account));
  return account;
}

/** `inner`, its fee paid by `feeSource` at the base fee (CAP-15). */
export function feeBumped(harness: LedgerClient, feeSource: Keypair, inner: Transaction): FeeBumpTransaction {
  const bump = TransactionBuilder.buildFeeBumpTransaction(feeSource, '100', inner, harness.passphrase);
  bump.sign(feeSource);
  return bump;
}

export const decodedResult = (resultXdr: string) => xdr.TransactionResult.fromXDR(resultXdr, 'base64');

/** The XDR arm name of operation `index`'s own result, e.g. revokeSponsorshipNotSponsor. */
export function operationResultName(resultXdr: string, index: number): string {
  const result = decodedResult(resultXdr).result();
  const operations =
    result.switch().name === 'txFeeBumpInnerFailed' || result.switch().name === 'txFeeBumpInnerSuccess'
      ? result.innerResultPair().result().result().results()
      : result.results();
  const operation = operations[index];
  if (!operation) throw new Error(`no result for operation ${index}`);
  if (operation.switch().name !== 'opInner') return operation.switch().name;
  const inner = operation.tr().value() as { switch(): { name: string } };
  return inner.switch().name;
}

/** A failure Horizon answered with 400 transaction_failed, for operation codes `operations`. */
export function expectOperationFailure(failure: FailedSubmission, operations: string[]): void {
  expect(failure.status).toBe(400);
  expect(failure.data.type).toBe('https://stellar.org/horizon-errors/transaction_failed');
  expect(failure.data.extras.result_codes).toEqual({ transaction: 'tx_failed', operations });
  expect(decodedResult(failure.data.extras.result_xdr).result().switch().name).toBe('txFailed');
}

/** Same, checking one failing operation's XDR arm too. */
export function expectOperationCode(failure: FailedSubmission, operations: string[], xdrName: string): void {
  expectOperationFailure(failure, operations);
  const failing = operations.findIndex((code) => code !== 'op_success');
  expect(operationResultName(failure.data.extras.result_xdr, failing)).toBe(xdrName);
}

/** Submits `tx`, which the ledger must refuse with these operation codes (expectOperationCode). */
export async function expectRefused(harness: LedgerClient, tx: Transaction | FeeBumpTransaction, operations: string[], xdrName: string): Promise<void> {
  expectOperationCode(await submitExpectingFailure(harness, tx), operations, xdrName);
}
