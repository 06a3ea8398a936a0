import { Asset, Horizon, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { SANDBOX_NETWORK_PASSPHRASE } from '@wallet/horizon-sandbox';
import { bearer, type CreatedUser } from './factories';
import type { TestApp } from './test-app';

// The ledger as people outside the service use it: an account of their own, and a wallet's key
// (the spec hands it to its user) used in another Stellar wallet, submitted straight to the
// sandbox's Horizon, never through the service (CONTRACT.md section 12).

/** The service's token, as the ledger names it. */
export async function serviceToken(app: TestApp): Promise<Asset> {
  const keys = await app.container.ledgerModule.accounts.keys();
  return new Asset('WLT', keys.issuer.publicKey());
}

/** Signs `operations` with `signer` as the source and submits them to the ledger directly; with `feeSource`, wrapped in its fee bump. */
export async function submitOutside(ledgerUrl: string, signer: Keypair, operations: ReturnType<typeof Operation.payment>[], feeSource?: Keypair): Promise<string> {
  const horizon = new Horizon.Server(ledgerUrl, { allowHttp: true });
  const source = await horizon.loadAccount(signer.publicKey());
  const builder = new TransactionBuilder(source, { fee: '100', networkPassphrase: SANDBOX_NETWORK_PASSPHRASE }).setTimeout(60);
  for (const op of operations) builder.addOperation(op);
  const inner = builder.build();
  inner.sign(signer);
  if (!feeSource) return (await horizon.submitTransaction(inner)).hash;
  const bump = TransactionBuilder.buildFeeBumpTransaction(feeSource, '400', inner, SANDBOX_NETWORK_PASSPHRASE);
  bump.sign(feeSource);
  return (await horizon.submitTransaction(bump)).hash;
}

/** A funded account of someone outside the service, trusting the service's token. */
export async function outsider(app: TestApp, ledgerUrl: string): Promise<Keypair> {
  const pair = Keypair.random();
  const res = await fetch(`${ledgerUrl}/friendbot?addr=${pair.publicKey()}`);
  if (!res.ok) throw new Error(`friendbot answered ${res.status}`);
  await submitOutside(ledgerUrl, pair, [Operation.changeTrust({ asset: await serviceToken(app) })]);
  return pair;
}

/** A user's wallet key, as the profile hands it to its owner. */
export async function walletKey(app: TestApp, user: CreatedUser): Promise<Keypair> {
  const profile = await app.http.get('/api/users/profile').set(bearer(user.token)).expect(200);
  return Keypair.fromSecret(profile.body.ledgerSecretKey as string);
}

/** A payment of the service's token on the ledger, made outside the service. */
export async function payTokens(app: TestApp, ledgerUrl: string, from: Keypair, to: string, amount: string, feeSource?: Keypair): Promise<string> {
  return submitOutside(ledgerUrl, from, [Operation.payment({ destination: to, asset: await serviceToken(app), amount })], feeSource);
}
