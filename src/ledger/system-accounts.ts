import { Keypair } from '@stellar/stellar-sdk';
import type { SystemAccountName, SystemAccountRepository } from '../db/repositories/system-account.repository';
import type { WalletCipher } from '../security/wallet-cipher';

export interface SystemKeys {
  issuer: Keypair;
  distribution: Keypair;
}

/**
 * The issuing and distribution accounts' keys: from ISSUER_SECRET / DISTRIBUTION_SECRET, or
 * generated once and stored encrypted in the database (development and sandbox only; production
 * requires the variables).
 */
export async function loadSystemKeys(
  configured: { issuerSecret: string | undefined; distributionSecret: string | undefined },
  repo: SystemAccountRepository,
  cipher: WalletCipher,
): Promise<SystemKeys> {
  const load = async (name: SystemAccountName, secret: string | undefined): Promise<Keypair> => {
    if (secret) return Keypair.fromSecret(secret);
    const stored = await repo.find(name);
    if (stored) return Keypair.fromSecret(cipher.open({ ciphertext: stored.secretCiphertext, keyId: stored.keyId }, stored.publicKey));
    const pair = Keypair.random();
    const sealed = cipher.seal(pair.secret(), pair.publicKey());
    const row = await repo.insertOnce({ name, publicKey: pair.publicKey(), secretCiphertext: sealed.ciphertext, keyId: sealed.keyId });
    return Keypair.fromSecret(cipher.open({ ciphertext: row.secretCiphertext, keyId: row.keyId }, row.publicKey));
  };
  return { issuer: await load('issuer', configured.issuerSecret), distribution: await load('distribution', configured.distributionSecret) };
}
