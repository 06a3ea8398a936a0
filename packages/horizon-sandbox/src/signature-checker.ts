import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { StrKey, type xdr } from '@stellar/stellar-sdk';
import type { AccountEntry } from './ledger-state';
import { SignatureCache } from './signature-cache';

export type ThresholdLevel = 'low' | 'med' | 'high';

// DER prefix of an Ed25519 SubjectPublicKeyInfo: lets node's native crypto verify raw Stellar keys,
// which is much faster than a JS implementation when a ledger carries hundreds of signatures.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

interface WeightedKey {
  key: string;
  weight: number;
}

/**
 * Checks one envelope's signatures against the signers of the accounts it touches, the way
 * stellar-core does: a signer counts once per check, weights add up to the needed threshold, at
 * least one signature is always required, and every signature must end up used by some check.
 */
export class SignatureChecker {
  private readonly used: boolean[];
  private readonly verified = new Map<string, boolean>();

  constructor(
    private readonly hash: Buffer,
    private readonly signatures: readonly xdr.DecoratedSignature[],
    private readonly signatureCache: SignatureCache = processSignatureCache,
  ) {
    this.used = signatures.map(() => false);
  }

  /** Do the signatures meet this account's threshold for the given level? */
  checkAccount(account: Readonly<AccountEntry>, level: ThresholdLevel): boolean {
    const signers: WeightedKey[] = account.signers.filter((signer) => signer.weight > 0);
    // a master weight of 0 removes the master key: that is how an issuer is locked
    if (account.masterWeight > 0) signers.push({ key: account.id, weight: account.masterWeight });
    return this.check(signers, account.thresholds[level]);
  }

  /** An operation source that does not exist yet (created earlier in the same transaction) signs with its key. */
  checkKeyOnly(accountId: string): boolean {
    return this.check([{ key: accountId, weight: 1 }], 0);
  }

  allUsed(): boolean {
    return this.used.every(Boolean);
  }

  private check(signers: WeightedKey[], neededWeight: number): boolean {
    const remaining = [...signers];
    let total = 0;
    for (let index = 0; index < this.signatures.length; index += 1) {
      const position = remaining.findIndex((signer) => this.matches(index, signer.key));
      if (position < 0) continue;
      const [signer] = remaining.splice(position, 1);
      this.used[index] = true;
      total = Math.min(255, total + (signer?.weight ?? 0));
      if (total >= neededWeight) return true;
    }
    return false;
  }

  private matches(index: number, accountId: string): boolean {
    const cacheKey = `${index}:${accountId}`;
    const cached = this.verified.get(cacheKey);
    if (cached !== undefined) return cached;
    const result = this.verifySignature(index, accountId);
    this.verified.set(cacheKey, result);
    return result;
  }

  private verifySignature(index: number, accountId: string): boolean {
    const signature = this.signatures[index];
    if (!signature) return false;
    const rawKey = StrKey.decodeEd25519PublicKey(accountId);
    if (!signature.hint().equals(rawKey.subarray(rawKey.length - 4))) return false;
    return this.signatureCache.verify(this.hash, rawKey, signature.signature());
  }
}

function verifyEd25519(message: Buffer, publicKey: Buffer, signature: Buffer): boolean {
  try {
    return verify(null, message, publicKeyObject(publicKey), signature);
  } catch {
    return false;
  }
}

// One for the process: core's admission and the ledger's apply each build their own checker for
// the same envelope, so only a cache they share spares the second verification.
const processSignatureCache = new SignatureCache(verifyEd25519);

// A key object per account, kept: building one per verification was 9% of the sandbox's CPU while
// a hundred wallets transferred (BENCHMARKS.md, issue 37). Bounded: emptied when full.
const KEY_OBJECTS_KEPT = 10_000;
const keyObjects = new Map<string, KeyObject>();

function publicKeyObject(rawKey: Buffer): KeyObject {
  const id = rawKey.toString('base64');
  let key = keyObjects.get(id);
  if (!key) {
    if (keyObjects.size >= KEY_OBJECTS_KEPT) keyObjects.clear();
    key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, rawKey]), format: 'der', type: 'spki' });
    keyObjects.set(id, key);
  }
  return key;
}
