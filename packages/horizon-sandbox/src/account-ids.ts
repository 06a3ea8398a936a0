import { StrKey, extractBaseAddress } from '@stellar/stellar-sdk';

/** Ledger entries belong to G accounts; a muxed M address only decorates one of them. */
export function baseAccountId(address: string): string {
  return address.startsWith('M') ? extractBaseAddress(address) : address;
}

export function isAccountId(value: string): boolean {
  return StrKey.isValidEd25519PublicKey(value);
}
