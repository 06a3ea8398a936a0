import { createHash } from 'node:crypto';
import type { FeeBumpTransaction, Transaction } from '@stellar/stellar-sdk';

const hashes = new WeakMap<Transaction | FeeBumpTransaction, Buffer>();

/**
 * A transaction's hash (SHA-256 of its signature base: the network and the transaction, never its
 * signatures), computed once per parsed envelope. Admission, the queue, the apply and the records
 * each ask for it, several times per envelope, and the SDK's own `hash()` encodes the XDR again and
 * hashes in JavaScript at every call: 10% of the sandbox host's CPU while a hundred wallets
 * transferred (BENCHMARKS.md, issue 37). Adding a signature does not change it, so keeping it per
 * object is safe. Callers must not write into the Buffer.
 */
export function envelopeHash(envelope: Transaction | FeeBumpTransaction): Buffer {
  let hash = hashes.get(envelope);
  if (!hash) {
    hash = createHash('sha256').update(envelope.signatureBase()).digest();
    hashes.set(envelope, hash);
  }
  return hash;
}

/** The hash as hex, as Horizon and RPC name a transaction. */
export function envelopeHashHex(envelope: Transaction | FeeBumpTransaction): string {
  return envelopeHash(envelope).toString('hex');
}
