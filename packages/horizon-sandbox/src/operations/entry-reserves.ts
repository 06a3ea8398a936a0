import type { LedgerDelta } from '../ledger-delta';
import {
  ACCOUNT_ENTRY_RESERVES,
  MAX_SUBENTRIES,
  SUBENTRY_RESERVES,
  minimumBalance,
  reserves,
  spendableNative,
} from '../ledger-rules';
import type { AccountEntry } from '../ledger-state';
import { OP_SUCCESS, type OperationContext } from './operation-context';

/**
 * Who pays the base reserves of a new or removed entry: its owner, or the account sponsoring the
 * owner in this transaction (stellar-core's SponsorshipUtils, CAP-33). Every function here decides
 * before it changes anything, so a refusal leaves the accounts as they were.
 */

/** The sponsor's writable account. A sponsor always exists: it cannot merge while it sponsors. */
export function sponsorAccount(delta: LedgerDelta, sponsorId: string): AccountEntry {
  const sponsor = delta.write(sponsorId);
  // stellar-core throws here too: it is a broken ledger, not a result code
  if (!sponsor) throw new Error(`sponsoring account ${sponsorId} is missing`);
  return sponsor;
}

/**
 * Takes the reserve for a new subentry (trustline or signer) of `owner`, from its sponsor if one is
 * active, else from the owner. On success the caller records the returned sponsor on the entry.
 */
export function reserveNewSubentry(
  { delta, sponsorships }: OperationContext,
  owner: AccountEntry,
): { code: string; sponsor?: string } {
  if (owner.subentryCount >= MAX_SUBENTRIES) return { code: 'op_too_many_subentries' };
  const sponsorId = sponsorships.sponsorFor(owner.id);
  if (sponsorId === undefined) {
    if (spendableNative(owner) < reserves(SUBENTRY_RESERVES)) return { code: 'op_low_reserve' };
    owner.subentryCount += 1;
    return { code: OP_SUCCESS };
  }
  // the owner needs nothing: the sponsor's spendable balance is what must cover the reserve
  const sponsor = sponsorAccount(delta, sponsorId);
  if (spendableNative(sponsor) < reserves(SUBENTRY_RESERVES)) return { code: 'op_low_reserve' };
  sponsor.numSponsoring += SUBENTRY_RESERVES;
  owner.numSponsored += SUBENTRY_RESERVES;
  owner.subentryCount += 1;
  return { code: OP_SUCCESS, sponsor: sponsorId };
}

/** Gives back the reserve of a removed subentry to whoever paid it. */
export function releaseSubentry(delta: LedgerDelta, owner: AccountEntry, sponsorId: string | undefined): void {
  owner.subentryCount -= 1;
  if (sponsorId === undefined) return;
  sponsorAccount(delta, sponsorId).numSponsoring -= SUBENTRY_RESERVES;
  owner.numSponsored -= SUBENTRY_RESERVES;
}

/**
 * The two reserves of a new account entry: paid by its sponsor if one is active for it (then the
 * account may start with nothing), else covered by its own starting balance.
 */
export function reserveNewAccount({ delta, sponsorships }: OperationContext, created: AccountEntry): string {
  const sponsorId = sponsorships.sponsorFor(created.id);
  if (sponsorId === undefined) return created.balance < minimumBalance(created) ? 'op_low_reserve' : OP_SUCCESS;
  const sponsor = sponsorAccount(delta, sponsorId);
  if (spendableNative(sponsor) < reserves(ACCOUNT_ENTRY_RESERVES)) return 'op_low_reserve';
  sponsor.numSponsoring += ACCOUNT_ENTRY_RESERVES;
  created.numSponsored += ACCOUNT_ENTRY_RESERVES;
  created.sponsor = sponsorId;
  return OP_SUCCESS;
}

/** A merged account's own two reserves go back to its sponsor, if it had one. */
export function releaseAccountEntry(delta: LedgerDelta, account: AccountEntry): void {
  if (account.sponsor === undefined) return;
  sponsorAccount(delta, account.sponsor).numSponsoring -= ACCOUNT_ENTRY_RESERVES;
  account.numSponsored -= ACCOUNT_ENTRY_RESERVES;
  account.sponsor = undefined;
}
