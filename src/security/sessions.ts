/**
 * When a credential change ends an account's sessions.
 *
 * A JWT's `iat` has one-second resolution, so a token issued in the same second as a password
 * reset cannot be told apart from one issued just before it. Those are refused: after a change
 * at 12:00:00.400, the first accepted `iat` is 12:00:01. A login right after the change waits for
 * that second (at most one second, only right after a change; see `waitUntilAccepted`), so its
 * fresh token is never refused. An account whose credentials never changed (changed_at =
 * created_at) accepts any token, so signing up and logging in at once costs no wait.
 */
export interface CredentialTimes {
  createdAt: Date;
  passwordChangedAt: Date;
}

/** The first JWT `iat` (seconds) accepted for the account; 0 when its credentials never changed. */
export function firstAcceptedIat(account: CredentialTimes): number {
  const changed = account.passwordChangedAt.getTime();
  if (changed <= account.createdAt.getTime()) return 0;
  return Math.floor(changed / 1000) + 1;
}

/** Longest wait for a login right after a change; more means a clock far off, and the token may be refused. */
const MAX_WAIT_MS = 1100;

/** Resolves once a token signed now gets an `iat` the account accepts. */
export async function waitUntilAccepted(account: CredentialTimes): Promise<void> {
  const target = firstAcceptedIat(account) * 1000;
  const deadline = Date.now() + MAX_WAIT_MS;
  // A timer may fire a millisecond early against the wall clock (libuv measures from its cached
  // loop time), and an iat one second short is refused: wait again until the clock is there.
  // Found by CI: a fresh admin token after a password change got 401.
  while (Date.now() < target && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(target - Date.now() + 2, MAX_WAIT_MS)));
  }
}
