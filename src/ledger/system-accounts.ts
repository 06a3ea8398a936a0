import { Keypair, type Asset } from '@stellar/stellar-sdk';
import { fundWithFriendbot } from '../clients/friendbot';
import { balanceOf, type LedgerApi } from '../clients/ledger-api';
import type { SystemAccountName, SystemAccountRepository } from '../db/repositories/system-account.repository';
import { errorReason } from '../errors/loggable-error';
import type { Logger } from '../logger';
import type { WalletCipher } from '../security/wallet-cipher';
import { channelFundingCommand } from './kinds/channel-funding';
import { issuerFlagsCommand } from './kinds/issuer-flags';
import { trustlineCommand } from './kinds/trustline';
import type { WriteCommand } from './write-command';

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
 * the sandbox or testnet), the distribution account trusts the token and its channel accounts
 * exist. Safe to run at every start: the trustline and the channels are journal writes, and a
 * channel created by an earlier start is simply found.
 * The issuer enables clawback first, so every trustline created from then on can give tokens back.
 * The sandbox and testnet go through this same code; only the URLs and passphrase differ.
 */
export async function bootstrapLedger(input: {
  client: LedgerApi;
  keys: SystemKeys;
  asset: Asset;
  friendbotUrl: string | undefined;
  logger: Logger;
  channels: Keypair[];
  /** A journal write of one of the bootstrap's commands: true once the network applied it. */
  write(command: WriteCommand): Promise<boolean>;
}): Promise<void> {
  const { client, keys, asset, friendbotUrl, logger } = input;
  for (const [name, pair] of [
    ['issuer', keys.issuer],
    ['distribution', keys.distribution],
  ] as const) {
    if (await client.loadAccount(pair.publicKey())) continue;
    if (!friendbotUrl) throw new Error(`the ${name} account ${pair.publicKey()} does not exist on the ledger and no FRIENDBOT_URL can fund it`);
    logger.info({ account: name, publicKey: pair.publicKey() }, 'funding system account through friendbot');
    await fundWithFriendbot(friendbotUrl, pair.publicKey());
  }
  const done = (confirmed: boolean, what: string) => {
    if (!confirmed) throw new Error(`${what} not confirmed yet`);
  };
  await enableClawback(input);
  const distribution = await client.loadAccount(keys.distribution.publicKey(), asset);
  if (distribution && !balanceOf(distribution, asset)) {
    logger.info({ asset: asset.getCode() }, 'distribution account trusting the token');
    done(await input.write(trustlineCommand()), 'the distribution trustline');
  }
  const missing: Keypair[] = [];
  for (const channel of input.channels) if (!(await client.loadAccount(channel.publicKey()))) missing.push(channel);
  if (missing.length > 0) logger.info({ count: missing.length }, 'creating channel accounts');
  const writes = await Promise.all(missing.map((channel) => input.write(channelFundingCommand(channel.publicKey()))));
  for (const w of writes) done(w, 'a channel account');
}

/**
 * Sets the issuer's AUTH_REVOCABLE and AUTH_CLAWBACK_ENABLED once (a reversed payment's tokens are
 * taken back by clawback). An issuer that cannot (AUTH_IMMUTABLE) leaves the service running:
 * every reversal then becomes the buyer's debt, as for wallets whose trustline predates the flag.
 */
async function enableClawback(input: Parameters<typeof bootstrapLedger>[0]): Promise<void> {
  const issuer = input.keys.issuer.publicKey();
  const account = await input.client.loadAccount(issuer);
  if (!account || (account.flags.authRevocable && account.flags.authClawbackEnabled)) return;
  input.logger.info({ issuer }, 'issuer enabling clawback');
  try {
    const confirmed = await input.write(issuerFlagsCommand());
    if (!confirmed) input.logger.warn({ issuer }, 'the issuer\'s clawback flags are not confirmed yet: the journal finishes them');
  } catch (err) {
    input.logger.warn({ issuer, reason: errorReason(err) }, 'the issuer could not enable clawback: reversed payments become debts');
  }
}
