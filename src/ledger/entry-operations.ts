import { AuthClawbackEnabledFlag, AuthRevocableFlag, Operation, type Asset, type AuthFlag, type Keypair, type xdr } from '@stellar/stellar-sdk';
import { formatStroops } from '../domain/amounts';
import { sponsored } from './sponsorship';

/**
 * What each kind of journal entry puts on the ledger. Built the same way for the first envelope
 * and for any later one (LedgerJournal.resubmit), so an entry means the same operations whichever
 * envelope carries it.
 */

/** A token payment (transfer or mint): from the envelope's acting account to `to`. */
export function tokenPayment(asset: Asset, to: string, stroops: bigint): xdr.Operation {
  return Operation.payment({ destination: to, asset, amount: formatStroops(stroops) });
}

/** The issuer takes tokens back from a wallet (CAP-35): they are burnt, not moved. */
export function clawbackOperation(asset: Asset, from: string, stroops: bigint): xdr.Operation {
  return Operation.clawback({ asset, from, amount: formatStroops(stroops) });
}

/**
 * The issuer's flags that let it take its token back: AUTH_REVOCABLE (which clawback requires)
 * and AUTH_CLAWBACK_ENABLED. Only trustlines created after them can be clawed back.
 */
export function clawbackFlagsOperation(issuer: string): xdr.Operation {
  return Operation.setOptions({ setFlags: (AuthRevocableFlag | AuthClawbackEnabledFlag) as AuthFlag, source: issuer });
}

/** New tokens from the issuer to the distribution account, which first trusts the token if it does not yet. */
export function issueOperations(asset: Asset, distribution: Keypair, stroops: bigint, trusts: boolean): { operations: xdr.Operation[]; signers: Keypair[] } {
  const distributionKey = distribution.publicKey();
  const operations = trusts ? [] : [Operation.changeTrust({ asset, source: distributionKey })];
  operations.push(Operation.payment({ destination: distributionKey, asset, amount: formatStroops(stroops) }));
  return { operations, signers: trusts ? [] : [distribution] };
}

/** Where a wallet stands on the ledger, as far as its activation is concerned. */
export type WalletOnLedger = 'missing' | 'untrusting' | 'ready';

/**
 * A wallet's account and its token trustline, their reserves sponsored by `sponsor` (the
 * distribution account): the wallet holds only `startingXlm` (0 by default), nothing a scripted
 * signup could withdraw, and never pays a fee (its transfers are fee-bumped).
 */
export function activationOperations(asset: Asset, sponsor: string, wallet: string, state: WalletOnLedger, startingXlm: string): xdr.Operation[] {
  const trust = Operation.changeTrust({ asset, source: wallet });
  if (state === 'missing') {
    const create = Operation.createAccount({ destination: wallet, startingBalance: startingXlm, source: sponsor });
    return sponsored(sponsor, wallet, [create, trust]);
  }
  return state === 'untrusting' ? sponsored(sponsor, wallet, [trust]) : [];
}
