import crypto from 'node:crypto';
import { Keypair, Operation, type xdr } from '@stellar/stellar-sdk';

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
export function channelCreation(distribution: Keypair, channel: Keypair): xdr.Operation[] {
  const sponsor = distribution.publicKey();
  return sponsored(sponsor, channel.publicKey(), [Operation.createAccount({ destination: channel.publicKey(), startingBalance: '0', source: sponsor })]);
}

/** A channel merged into the distribution account: its XLM and its sponsored reserve go back to the sponsor. */
export function channelRemoval(distribution: Keypair, channel: Keypair): xdr.Operation[] {
  return [Operation.accountMerge({ destination: distribution.publicKey(), source: channel.publicKey() })];
}

/**
 * Wraps operations so that `sponsor` pays the reserves they create for `sponsoredId` (CAP-33
 * sponsored reserves): a new wallet or channel account and its trustline cost the sponsor, not the
 * account, so the service never hands out XLM its users could withdraw. The sponsored account
 * signs the closing operation: nobody is sponsored without consenting.
 */
export function sponsored(sponsor: string, sponsoredId: string, operations: xdr.Operation[]): xdr.Operation[] {
  return [
    Operation.beginSponsoringFutureReserves({ sponsoredId, source: sponsor }),
    ...operations,
    Operation.endSponsoringFutureReserves({ source: sponsoredId }),
  ];
}
