import { Horizon, Keypair } from '@stellar/stellar-sdk';
import { users } from '../../src/db/schema';
import { adminToken, bearer, createUser, userFields, type CreatedUser, type SignupFields } from './factories';
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

/**
 * A user made straight in the database, with a wallet the ledger does not hold yet and no
 * activation queued: the test queues it (`activation.activateUser(id, { fresh: true })`), many at
 * once if it likes, without a signup's own wait for the ledger. Returns the user's id.
 */
export async function userAwaitingActivation(app: TestApp): Promise<string> {
  return app.container.database.db.transaction(async (tx) => {
    const [row] = await tx.insert(users).values({ ...userFields(), passwordHash: 'x' }).returning();
    await app.container.wallets.createFor(tx, row!.id);
    return row!.id;
  });
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
