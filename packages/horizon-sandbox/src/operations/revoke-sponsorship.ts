import { Asset, type Operation } from '@stellar/stellar-sdk';
import { assetKey, ACCOUNT_ENTRY_RESERVES, SUBENTRY_RESERVES, reserves, spendableNative } from '../ledger-rules';
import type { AccountEntry } from '../ledger-state';
import { sponsorAccount } from './entry-reserves';
import { OP_SUCCESS, type OperationContext } from './operation-context';

export type RevokeSponsorshipOperation =
  | Operation.RevokeAccountSponsorship
  | Operation.RevokeTrustlineSponsorship
  | Operation.RevokeOfferSponsorship
  | Operation.RevokeDataSponsorship
  | Operation.RevokeClaimableBalanceSponsorship
  | Operation.RevokeLiquidityPoolSponsorship
  | Operation.RevokeSignerSponsorship;

// stellar-base decodes each arm of revoke_sponsorship under its own type name, although its typings
// declare them all as 'revokeSponsorship': dispatch on the names it really produces.
const REVOKE_TYPES = new Set([
  'revokeAccountSponsorship',
  'revokeTrustlineSponsorship',
  'revokeOfferSponsorship',
  'revokeDataSponsorship',
  'revokeClaimableBalanceSponsorship',
  'revokeLiquidityPoolSponsorship',
  'revokeSignerSponsorship',
]);

/** Whether an operation type name (as stellar-base decodes it) is an arm of revoke_sponsorship. */
export function isRevokeSponsorshipType(type: string): boolean {
  return REVOKE_TYPES.has(type);
}

export function isRevokeSponsorship(op: Operation): op is RevokeSponsorshipOperation {
  return isRevokeSponsorshipType(op.type);
}

const runtimeType = (op: RevokeSponsorshipOperation): string => op.type;

/** stellar-core's doCheckValid: keys that can never name a sponsorable entry are malformed. */
export function checkRevokeSponsorship(op: RevokeSponsorshipOperation): string {
  switch (runtimeType(op)) {
    case 'revokeTrustlineSponsorship': {
      const { account, asset } = op as Operation.RevokeTrustlineSponsorship;
      // nobody holds a trustline to XLM or to an asset it issues
      if (asset instanceof Asset && (asset.isNative() || asset.getIssuer() === account)) return 'op_malformed';
      return OP_SUCCESS;
    }
    case 'revokeOfferSponsorship':
      return BigInt((op as Operation.RevokeOfferSponsorship).offerId) <= 0n ? 'op_malformed' : OP_SUCCESS;
    case 'revokeDataSponsorship':
      return (op as Operation.RevokeDataSponsorship).name.length === 0 ? 'op_malformed' : OP_SUCCESS;
    case 'revokeLiquidityPoolSponsorship':
      // a liquidity pool entry has no sponsor to revoke
      return 'op_malformed';
    default:
      return OP_SUCCESS;
  }
}

export function applyRevokeSponsorship(op: RevokeSponsorshipOperation, context: OperationContext): string {
  switch (runtimeType(op)) {
    case 'revokeAccountSponsorship': {
      const owner = context.delta.write((op as Operation.RevokeAccountSponsorship).account);
      if (!owner) return 'op_does_not_exist';
      return moveReserve(context, owner, owner, ACCOUNT_ENTRY_RESERVES);
    }
    case 'revokeTrustlineSponsorship': {
      const { account, asset } = op as Operation.RevokeTrustlineSponsorship;
      const owner = context.delta.write(account);
      // pool share trustlines need pools, which the sandbox does not have: such a line never exists
      const key = asset instanceof Asset ? assetKey(asset.getCode(), asset.getIssuer()) : undefined;
      const line = key === undefined ? undefined : owner?.trustlines.get(key);
      if (!owner || !line) return 'op_does_not_exist';
      return moveReserve(context, owner, line, SUBENTRY_RESERVES);
    }
    case 'revokeSignerSponsorship': {
      const { account, signer } = op as Operation.RevokeSignerSponsorship;
      const owner = context.delta.write(account);
      // the sandbox only has ed25519 signers, so any other kind of key names nothing
      const key = 'ed25519PublicKey' in signer ? signer.ed25519PublicKey : undefined;
      const entry = owner?.signers.find((candidate) => candidate.key === key);
      if (!owner || !entry) return 'op_does_not_exist';
      return moveReserve(context, owner, entry, SUBENTRY_RESERVES);
    }
    default:
      // offers, data entries and claimable balances: none of the operations that create them is
      // implemented here, so the entry cannot exist (stellar-core's answer for a missing entry)
      return 'op_does_not_exist';
  }
}

/**
 * stellar-core's updateLedgerEntrySponsorship / updateSignerSponsorship. Only whoever pays an entry's
 * reserve may hand it on: its sponsor, or the owner of an unsponsored entry. Where it goes is decided
 * by the revoking account's own sponsor in this transaction: none (or the owner itself) gives the
 * reserve back to the owner, anyone else takes it over. `entry` is `owner` itself for an account entry.
 */
function moveReserve(
  { delta, source, sponsorships }: OperationContext,
  owner: AccountEntry,
  entry: { sponsor?: string },
  count: number,
): string {
  const current = entry.sponsor;
  if ((current ?? owner.id) !== source) return 'op_not_sponsor';
  const sponsorOfSource = sponsorships.sponsorFor(source);
  const next = sponsorOfSource !== owner.id ? sponsorOfSource : undefined;

  if (current !== undefined && next !== undefined) {
    // transfer: the new sponsor must afford it even if it is the current one
    const newSponsor = sponsorAccount(delta, next);
    if (spendableNative(newSponsor) < reserves(count)) return 'op_low_reserve';
    newSponsor.numSponsoring += count;
    sponsorAccount(delta, current).numSponsoring -= count;
  } else if (current !== undefined) {
    // back to the owner, which must be able to hold the reserve itself
    if (spendableNative(owner) < reserves(count)) return 'op_low_reserve';
    sponsorAccount(delta, current).numSponsoring -= count;
    owner.numSponsored -= count;
  } else if (next !== undefined) {
    const newSponsor = sponsorAccount(delta, next);
    if (spendableNative(newSponsor) < reserves(count)) return 'op_low_reserve';
    newSponsor.numSponsoring += count;
    owner.numSponsored += count;
  }
  if (next === undefined) delete entry.sponsor;
  else entry.sponsor = next;
  return OP_SUCCESS;
}
