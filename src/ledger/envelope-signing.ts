import crypto from 'node:crypto';
import { xdr, type FeeBumpTransaction, type Keypair, type Transaction } from '@stellar/stellar-sdk';

/**
 * Signs envelopes with Node's own Ed25519 (OpenSSL) instead of the SDK's pure-JavaScript one
 * (@noble/curves): the same signatures, byte for byte (Ed25519 is deterministic), for a fraction
 * of the CPU. Two signatures per envelope were 9% of the service's main thread under load
 * (BENCHMARKS.md, issue 37).
 */
export function signEnvelope(tx: Transaction | FeeBumpTransaction, ...signers: Keypair[]): void {
  const hash = tx.hash();
  for (const signer of signers) {
    const signature = crypto.sign(null, hash, privateKeyOf(signer));
    tx.signatures.push(new xdr.DecoratedSignature({ hint: signer.signatureHint(), signature }));
  }
}

/** PKCS#8 DER of an Ed25519 private key, up to its 32-byte seed (RFC 8410). */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

const keys = new WeakMap<Keypair, crypto.KeyObject>();

function privateKeyOf(signer: Keypair): crypto.KeyObject {
  let key = keys.get(signer);
  if (!key) {
    key = crypto.createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, signer.rawSecretKey()]), format: 'der', type: 'pkcs8' });
    keys.set(signer, key);
  }
  return key;
}
