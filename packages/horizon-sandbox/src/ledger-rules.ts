/**
 * Network constants and the few derived rules every operation needs. The values are the public
 * network's (base fee 100 stroops, base reserve 0.5 XLM) so that code tested here behaves the
 * same on testnet.
 */

export const BASE_FEE = 100n;
export const BASE_RESERVE = 5_000_000n;
export const PROTOCOL_VERSION = 23;
export const MAX_SUBENTRIES = 1000;
export const MAX_SIGNERS = 20;

export const AUTH_REQUIRED_FLAG = 1;
export const AUTH_REVOCABLE_FLAG = 2;
export const AUTH_IMMUTABLE_FLAG = 4;
export const AUTH_CLAWBACK_ENABLED_FLAG = 8;
export const KNOWN_ACCOUNT_FLAGS =
  AUTH_REQUIRED_FLAG | AUTH_REVOCABLE_FLAG | AUTH_IMMUTABLE_FLAG | AUTH_CLAWBACK_ENABLED_FLAG;

/** Trustline flags (core's TrustLineFlags, protocol 17's mask). */
export const TRUSTLINE_AUTHORIZED_FLAG = 1;
/** Holds its balance and offers but cannot send or receive: a frozen, not emptied, line. */
export const TRUSTLINE_AUTHORIZED_TO_MAINTAIN_LIABILITIES_FLAG = 2;
/** Copied from the issuer's AUTH_CLAWBACK_ENABLED when the line is created, never set afterwards (CAP-35). */
export const TRUSTLINE_CLAWBACK_ENABLED_FLAG = 4;
export const TRUSTLINE_AUTH_FLAGS = TRUSTLINE_AUTHORIZED_FLAG | TRUSTLINE_AUTHORIZED_TO_MAINTAIN_LIABILITIES_FLAG;
export const KNOWN_TRUSTLINE_FLAGS = TRUSTLINE_AUTH_FLAGS | TRUSTLINE_CLAWBACK_ENABLED_FLAG;

/** Only AUTHORIZED lets a line send or receive; the two authorization flags are never both set. */
export const isAuthorizedLine = (flags: number): boolean => (flags & TRUSTLINE_AUTHORIZED_FLAG) !== 0;

/** What the minimum balance depends on. */
export interface ReserveCounts {
  subentryCount: number;
  numSponsoring: number;
  numSponsored: number;
}

/**
 * (2 + subentries + sponsoring - sponsored) base reserves: what an account must keep and can never
 * spend. Reserves it pays for others count against it; its own entries that others pay for do not
 * (CAP-33), which is how a sponsored account can exist with a balance of 0.
 */
export function minimumBalance(account: ReserveCounts): bigint {
  const reserves = 2n + BigInt(account.subentryCount) + BigInt(account.numSponsoring) - BigInt(account.numSponsored);
  return reserves * BASE_RESERVE;
}

/** Native balance the account may spend on payments and fees (no liabilities: there are no offers). */
export function spendableNative(account: ReserveCounts & { balance: bigint }): bigint {
  return account.balance - minimumBalance(account);
}

/** Base reserves an entry locks: an account entry two, a trustline or a signer one (stellar-core's computeMultiplier). */
export const ACCOUNT_ENTRY_RESERVES = 2;
export const SUBENTRY_RESERVES = 1;

/** `count` base reserves, in stroops. */
export function reserves(count: number): bigint {
  return BigInt(count) * BASE_RESERVE;
}

/** The key a trustline is filed under in its account. */
export function assetKey(code: string, issuer: string): string {
  return `${code}:${issuer}`;
}
