import axios from 'axios';
import { LedgerUnavailableError } from './ledger-errors';
import { unavailable } from './ledger-failures';

// Friendbot is neither RPC nor Horizon (testnet's is its own service; the sandbox's sits beside its
// Horizon), so it is no part of the ledger port: the system accounts' bootstrap calls it directly.

/**
 * Funds a new account through a friendbot (the sandbox's, or testnet's). A 400 means the account
 * already exists: the state that was wanted.
 */
export async function fundWithFriendbot(friendbotUrl: string, publicKey: string): Promise<void> {
  const url = new URL(friendbotUrl);
  url.searchParams.set('addr', publicKey);
  const res = await axios.get(url.toString(), { timeout: 30_000, validateStatus: () => true }).catch((err: unknown) => {
    throw unavailable(err);
  });
  if (res.status >= 500) throw new LedgerUnavailableError(`Friendbot answered ${res.status}`);
}
