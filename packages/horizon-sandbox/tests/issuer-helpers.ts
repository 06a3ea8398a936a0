import {
  AuthClawbackEnabledFlag,
  AuthRevocableFlag,
  Asset,
  Operation,
  type AuthFlag,
  type Horizon,
  type Keypair,
  type xdr,
} from '@stellar/stellar-sdk';
import { operationResultName, stroops, trustlineOf } from './reserve-helpers';
import { buildTransaction, fundedAccount, type SandboxHarness } from './sandbox-harness';

/**
 * Helpers for the CAP-35 tests (issuer flags, trustline flags, clawback): an issuer set up as the
 * service will set its own, holders with trustlines made at a chosen moment, and the two views a
 * client reads them through (Horizon's account resource, RPC's ledger entries).
 */

/** TrustLineFlags as core writes them in the trustline entry. */
export const TRUSTLINE_AUTHORIZED = 1;
export const TRUSTLINE_MAINTAIN_LIABILITIES = 2;
export const TRUSTLINE_CLAWBACK_ENABLED = 4;

/** Revocable and clawback-enabled together: clawback alone is refused (op_auth_revocable_required). */
export const CLAWBACK_ISSUER_FLAGS = AuthRevocableFlag | AuthClawbackEnabledFlag;

/** Sets account flags on `account` and returns the transaction's result XDR. */
export async function setAccountFlags(harness: SandboxHarness, account: Keypair, setFlags: number): Promise<string> {
  const op = Operation.setOptions({ setFlags: asFlags(setFlags) });
  const response = await harness.horizon.submitTransaction(await buildTransaction(harness, account, [op]));
  return response.result_xdr;
}

/** The SDK types setFlags/clearFlags as one named flag; core takes any bitmask, unknown bits too. */
export const asFlags = (bits: number): AuthFlag => bits as AuthFlag;

/** A funded issuer with `flags` already set (none: a plain issuer). */
export async function issuerWith(harness: SandboxHarness, flags = 0): Promise<Keypair> {
  const issuer = await fundedAccount(harness);
  if (flags !== 0) await setAccountFlags(harness, issuer, flags);
  return issuer;
}

/** A funded account trusting `asset` from now on, holding `amount` the issuer minted to it (0: nothing). */
export async function holderOf(harness: SandboxHarness, asset: Asset, issuer: Keypair, amount = '0'): Promise<Keypair> {
  const holder = await fundedAccount(harness);
  await harness.horizon.submitTransaction(await buildTransaction(harness, holder, [Operation.changeTrust({ asset })]));
  if (amount !== '0') await mint(harness, issuer, holder, asset, amount);
  return holder;
}

export async function mint(harness: SandboxHarness, issuer: Keypair, holder: Keypair, asset: Asset, amount: string): Promise<void> {
  const pay = Operation.payment({ destination: holder.publicKey(), asset, amount });
  await harness.horizon.submitTransaction(await buildTransaction(harness, issuer, [pay]));
}

export const clawbackOp = (asset: Asset, from: Keypair | string, amount: string): xdr.Operation =>
  Operation.clawback({ asset, from: typeof from === 'string' ? from : from.publicKey(), amount });

/** The holder's balance line for `asset` on Horizon; fails the test if the line is missing. */
export async function horizonLine(harness: SandboxHarness, holder: Keypair, asset: Asset): Promise<Horizon.HorizonApi.BalanceLineAsset> {
  const account = await harness.horizon.loadAccount(holder.publicKey());
  const line = trustlineOf(account, asset.getCode(), asset.getIssuer());
  if (!line) throw new Error(`${holder.publicKey()} shows no ${asset.getCode()} line on Horizon`);
  return line;
}

/** The same line as RPC's getLedgerEntries holds it: balance in stroops and the raw TrustLineFlags. */
export async function rpcLine(harness: SandboxHarness, holder: Keypair, asset: Asset): Promise<{ balance: bigint; flags: number }> {
  const entry = await harness.rpc.getTrustline(holder.publicKey(), asset);
  return { balance: BigInt(entry.balance().toString()), flags: entry.flags() };
}

/** Horizon's balance string in stroops, for comparing with RPC's int64. */
export const lineStroops = (line: Horizon.HorizonApi.BalanceLineAsset): bigint => stroops(line.balance);

/** Operation 0's own result arm in a result XDR, e.g. clawbackSuccess. */
export const firstResultName = (resultXdr: string): string => operationResultName(resultXdr, 0);

export const newAsset = (code: string, issuer: Keypair) => new Asset(code, issuer.publicKey());
