import crypto from 'node:crypto';
import { Keypair, Operation, type xdr } from '@stellar/stellar-sdk';
import { sponsored } from './sponsorship';
import type { SystemKeys } from './system-accounts';

/** LEDGER_CHANNELS' upper bound: the channels a removal looks for. */
export const MAX_CHANNELS = 50;

/**
 * Channel keys are derived from the distribution secret: nothing more to store or configure, and
 * every process of the service finds the same channels. Channel i is the same account whatever
 * the count, so raising or lowering LEDGER_CHANNELS adds or removes channels at the end.
 */
export function channelKeys(distribution: Keypair, count: number): Keypair[] {
  return Array.from({ length: count }, (_, i) => channelKey(distribution, i));
}

function channelKey(distribution: Keypair, index: number): Keypair {
  return Keypair.fromRawEd25519Seed(crypto.createHash('sha256').update(`wallet-channel:${index}:${distribution.secret()}`).digest());
}

/** The channel key with this public key, if it is one of the distribution account's channels. */
export function channelKeyOf(distribution: Keypair, publicKey: string): Keypair | undefined {
  return channelKeys(distribution, MAX_CHANNELS).find((k) => k.publicKey() === publicKey);
}

/**
 * A channel created with 0 XLM, its reserve sponsored by the distribution account: it only gives
 * sequence numbers (fee bumps pay its fees), so it never needs topping up.
 */
export function channelCreation(keys: SystemKeys, channel: Keypair): xdr.Operation[] {
  const sponsor = keys.distribution.publicKey();
  return sponsored(sponsor, channel.publicKey(), [Operation.createAccount({ destination: channel.publicKey(), startingBalance: '0', source: sponsor })]);
}

/** A channel merged into the distribution account: its XLM and its sponsored reserve go back to the sponsor. */
export function channelRemoval(keys: SystemKeys, channel: Keypair): xdr.Operation[] {
  return [Operation.accountMerge({ destination: keys.distribution.publicKey(), source: channel.publicKey() })];
}
