import { StrKey } from '@stellar/stellar-sdk';

/**
 * A Stellar account id (G..., 56 characters, valid checksum): what a request may name as a
 * wallet. Re-encoding must give the same text back, so no second spelling of one key passes.
 */
export function isStellarPublicKey(key: string): boolean {
  try {
    return StrKey.encodeEd25519PublicKey(StrKey.decodeEd25519PublicKey(key)) === key;
  } catch {
    return false;
  }
}
