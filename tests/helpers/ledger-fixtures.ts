import { Horizon, Keypair } from '@stellar/stellar-sdk';
import { adminToken, bearer, createUser, type CreatedUser, type SignupFields } from './factories';
import type { TestApp } from './test-app';

/** Issues supply to the distribution account once per app, then mints `tokens` to a new user. */
export async function fundedUser(app: TestApp, tokens: number, overrides: Partial<SignupFields> = {}): Promise<CreatedUser> {
  const admin = await adminToken(app);
  const user = await createUser(app, overrides);
  if (tokens === 0) return user;
  await app.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: String(tokens) }).expect(200);
  await app.http.post('/api/payments/mint-tokens').set(bearer(admin)).send({ userId: user.userId, amount: tokens }).expect(200);
  return user;
}

/** A balance straight from the ledger's Horizon API, not through the service. */
export async function ledgerBalance(horizonUrl: string, publicKey: string, assetCode = 'WLT'): Promise<string | undefined> {
  const account = await new Horizon.Server(horizonUrl, { allowHttp: true }).loadAccount(publicKey);
  const line = account.balances.find((b) => (assetCode === 'XLM' ? b.asset_type === 'native' : 'asset_code' in b && b.asset_code === assetCode));
  return line?.balance;
}

/** A funded ledger account that is not a wallet of the service (and trusts nothing). */
export async function outsideAccount(horizonUrl: string): Promise<string> {
  const pair = Keypair.random();
  const res = await fetch(`${horizonUrl}/friendbot?addr=${pair.publicKey()}`);
  if (!res.ok) throw new Error(`friendbot answered ${res.status}`);
  return pair.publicKey();
}

export { bearer };
