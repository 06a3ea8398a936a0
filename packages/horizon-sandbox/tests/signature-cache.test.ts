import { createHash } from 'node:crypto';
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { SignatureCache, type VerifySignature } from '../src/signature-cache';
import { SignatureChecker } from '../src/signature-checker';

/** A real Ed25519 check (the SDK's, not the sandbox's) that counts how often it runs. */
function countingVerifier(): { verify: VerifySignature; calls: () => number } {
  let calls = 0;
  return {
    verify: (message, publicKey, signature) => {
      calls += 1;
      return Keypair.fromPublicKey(StrKey.encodeEd25519PublicKey(publicKey)).verify(message, signature);
    },
    calls: () => calls,
  };
}

function transactionHash(label: string): Buffer {
  return createHash('sha256').update(label).digest();
}

describe('SignatureCache', () => {
  it('verifies a signature once for the same hash, key and signature', () => {
    const verifier = countingVerifier();
    const cache = new SignatureCache(verifier.verify);
    const signer = Keypair.random();
    const hash = transactionHash('payment');
    const signature = signer.sign(hash);

    const first = cache.verify(hash, signer.rawPublicKey(), signature);
    const second = cache.verify(hash, signer.rawPublicKey(), signature);

    expect([first, second]).toEqual([true, true]);
    expect(verifier.calls()).toBe(1);
  });

  it('verifies the same signature over another hash afresh, and refuses it', () => {
    const verifier = countingVerifier();
    const cache = new SignatureCache(verifier.verify);
    const signer = Keypair.random();
    const signed = transactionHash('payment');
    const other = transactionHash('another payment');
    const signature = signer.sign(signed);
    expect(cache.verify(signed, signer.rawPublicKey(), signature)).toBe(true);

    const reused = cache.verify(other, signer.rawPublicKey(), signature);

    expect(reused).toBe(false);
    expect(verifier.calls()).toBe(2);
  });

  it('verifies the same signature offered for another key afresh, and refuses it', () => {
    const verifier = countingVerifier();
    const cache = new SignatureCache(verifier.verify);
    const [signer, stranger] = [Keypair.random(), Keypair.random()];
    const hash = transactionHash('payment');
    const signature = signer.sign(hash);
    expect(cache.verify(hash, signer.rawPublicKey(), signature)).toBe(true);

    const reused = cache.verify(hash, stranger.rawPublicKey(), signature);

    expect(reused).toBe(false);
    expect(verifier.calls()).toBe(2);
  });

  it('verifies another signature over the same hash and key afresh', () => {
    const verifier = countingVerifier();
    const cache = new SignatureCache(verifier.verify);
    const signer = Keypair.random();
    const hash = transactionHash('payment');
    const signature = signer.sign(hash);
    expect(cache.verify(hash, signer.rawPublicKey(), signature)).toBe(true);
    const forged = Buffer.from(signature);
    forged[0] = (forged[0] ?? 0) ^ 0xff;

    const reused = cache.verify(hash, signer.rawPublicKey(), forged);

    expect(reused).toBe(false);
    expect(verifier.calls()).toBe(2);
  });

  it('remembers a refusal too, so a badly signed envelope resubmitted is not verified again', () => {
    const verifier = countingVerifier();
    const cache = new SignatureCache(verifier.verify);
    const [signer, stranger] = [Keypair.random(), Keypair.random()];
    const hash = transactionHash('payment');
    const signature = stranger.sign(hash);

    const first = cache.verify(hash, signer.rawPublicKey(), signature);
    const second = cache.verify(hash, signer.rawPublicKey(), signature);

    expect([first, second]).toEqual([false, false]);
    expect(verifier.calls()).toBe(1);
  });

  it('keeps no more than its capacity, evicting the oldest result first', () => {
    const verifier = countingVerifier();
    const cache = new SignatureCache(verifier.verify, 3);
    const signer = Keypair.random();
    const hashes = ['first', 'second', 'third', 'fourth'].map(transactionHash);
    const verifyNth = (index: number): boolean => {
      const hash = hashes[index] ?? Buffer.alloc(32);
      return cache.verify(hash, signer.rawPublicKey(), signer.sign(hash));
    };
    for (let index = 0; index < hashes.length; index += 1) verifyNth(index);
    expect(cache.size).toBe(3);
    expect(verifier.calls()).toBe(4);

    verifyNth(3); // the newest is still kept
    expect(verifier.calls()).toBe(4);
    verifyNth(0); // the oldest was evicted: verified again
    expect(verifier.calls()).toBe(5);
    expect(cache.size).toBe(3);
  });

  it('stays at its bound however many results go in', () => {
    let calls = 0;
    const cache = new SignatureCache(() => {
      calls += 1;
      return true;
    }, 50);
    const key = Buffer.alloc(32, 1);

    for (let n = 0; n < 500; n += 1) cache.verify(transactionHash(`tx ${n}`), key, Buffer.alloc(64, n % 256));

    expect(calls).toBe(500);
    expect(cache.size).toBe(50);
  });

  it('refuses a capacity that could not hold a result', () => {
    expect(() => new SignatureCache(() => true, 0)).toThrow('capacity must be a positive integer, got 0');
  });
});

describe('SignatureChecker with a shared SignatureCache', () => {
  it('does not verify again when the ledger applies an envelope core already admitted', () => {
    const verifier = countingVerifier();
    const cache = new SignatureCache(verifier.verify);
    const source = Keypair.random();
    const hash = transactionHash('payment');
    const signatures = [source.signDecorated(hash)];
    const atAdmission = new SignatureChecker(hash, signatures, cache);
    const atApply = new SignatureChecker(hash, signatures, cache);

    expect(atAdmission.checkKeyOnly(source.publicKey())).toBe(true);
    expect(atApply.checkKeyOnly(source.publicKey())).toBe(true);

    expect(atApply.allUsed()).toBe(true);
    expect(verifier.calls()).toBe(1);
  });

  it('refuses signatures copied onto another envelope after they were verified for their own', () => {
    const verifier = countingVerifier();
    const cache = new SignatureCache(verifier.verify);
    const source = Keypair.random();
    const signed = transactionHash('payment');
    const signatures = [source.signDecorated(signed)];
    expect(new SignatureChecker(signed, signatures, cache).checkKeyOnly(source.publicKey())).toBe(true);

    const copied = new SignatureChecker(transactionHash('another payment'), signatures, cache);

    expect(copied.checkKeyOnly(source.publicKey())).toBe(false);
    expect(copied.allUsed()).toBe(false);
    expect(verifier.calls()).toBe(2);
  });

  it('with the process-wide cache, accepts an envelope twice and refuses its signatures on another', () => {
    const source = Keypair.random();
    const signed = transactionHash('payment');
    const signatures = [source.signDecorated(signed)];

    const admitted = new SignatureChecker(signed, signatures).checkKeyOnly(source.publicKey());
    const applied = new SignatureChecker(signed, signatures).checkKeyOnly(source.publicKey());
    const copied = new SignatureChecker(transactionHash('another payment'), signatures).checkKeyOnly(source.publicKey());

    expect([admitted, applied, copied]).toEqual([true, true, false]);
  });
});
