/** Checks an Ed25519 signature over a message with a raw 32-byte public key. Never throws: a malformed signature is false. */
export type VerifySignature = (message: Buffer, publicKey: Buffer, signature: Buffer) => boolean;

/**
 * How many results are kept: the default queue (4 ledgers of 1000 operations, so at most 4000
 * envelopes) with about a dozen signatures each, far more than wallets send. Each entry holds a
 * key of under 200 characters, so a full cache is some 10-15 MB.
 */
export const SIGNATURE_RESULTS_KEPT = 50_000;

/**
 * stellar-core's signature-verification cache: every envelope is verified when core admits it and
 * again when the ledger applies it, each time by a new SignatureChecker, and verifying was 23% of
 * the sandbox's CPU under load (BENCHMARKS.md). A result is reused only for the same message hash,
 * public key and signature bytes, all three, so another signature over the same hash, or the same
 * signature offered for another key, is verified afresh.
 *
 * Both valid and invalid results are kept: a result depends on nothing but those three parts, so a
 * remembered "invalid" is exactly as true as a remembered "valid", and a client resubmitting a badly
 * signed envelope then costs no more than one resubmitting a good one.
 */
export class SignatureCache {
  private readonly results = new Map<string, boolean>();

  constructor(
    private readonly verifyUncached: VerifySignature,
    readonly capacity: number = SIGNATURE_RESULTS_KEPT,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`capacity must be a positive integer, got ${capacity}`);
  }

  /** Is the signature valid? Verified at most once per (message hash, public key, signature) while kept. */
  verify(messageHash: Buffer, publicKey: Buffer, signature: Buffer): boolean {
    // base64 has no '.', so the three parts cannot run into each other whatever their lengths
    const key = `${messageHash.toString('base64')}.${publicKey.toString('base64')}.${signature.toString('base64')}`;
    const cached = this.results.get(key);
    if (cached !== undefined) return cached;
    const valid = this.verifyUncached(messageHash, publicKey, signature);
    this.remember(key, valid);
    return valid;
  }

  get size(): number {
    return this.results.size;
  }

  // The oldest goes first (a Map iterates in insertion order), and a hit does not make an entry
  // younger: an envelope is checked when admitted and again when applied, at most a few ledgers
  // later, so the oldest results belong to envelopes already applied or dropped from the queue.
  private remember(key: string, valid: boolean): void {
    if (this.results.size >= this.capacity) {
      const oldest = this.results.keys().next();
      if (!oldest.done) this.results.delete(oldest.value);
    }
    this.results.set(key, valid);
  }
}
