import { Asset, Keypair, Operation } from '@stellar/stellar-sdk';
import { StellarClient } from '../clients/stellar.client';
import type { SystemAccountName, SystemAccountRepository } from '../db/repositories/system-account.repository';
import type { Logger } from '../logger';
import type { WalletCipher } from '../security/wallet-cipher';
import type { AccountSubmitter } from './account-submitter';

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

/**
 * Makes the ledger ready for the service: both accounts exist (funded through the friendbot on
 * the sandbox or testnet) and the distribution account trusts the token. Safe to run at every start.
 * The sandbox and testnet go through this same code; only the URLs and passphrase differ.
 */
export async function bootstrapLedger(input: {
  client: StellarClient;
  keys: SystemKeys;
  asset: Asset;
  friendbotUrl: string | undefined;
  distribution: AccountSubmitter;
  logger: Logger;
}): Promise<void> {
  const { client, keys, asset, friendbotUrl, logger } = input;
  for (const [name, pair] of [
    ['issuer', keys.issuer],
    ['distribution', keys.distribution],
  ] as const) {
    if (await client.loadAccount(pair.publicKey())) continue;
    if (!friendbotUrl) throw new Error(`the ${name} account ${pair.publicKey()} does not exist on the ledger and no FRIENDBOT_URL can fund it`);
    logger.info({ account: name, publicKey: pair.publicKey() }, 'funding system account through friendbot');
    await client.fundWithFriendbot(friendbotUrl, pair.publicKey());
  }
  const distribution = await client.loadAccount(keys.distribution.publicKey());
  if (distribution && !StellarClient.balanceOf(distribution, asset)) {
    logger.info({ asset: asset.getCode() }, 'distribution account trusting the token');
    await input.distribution.submit({ operations: [Operation.changeTrust({ asset })] });
  }
}
