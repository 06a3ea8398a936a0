import crypto from 'node:crypto';

export interface SealedSecret {
  ciphertext: string;
  keyId: string;
}

/**
 * Encrypts wallet secret seeds at rest with AES-256-GCM. Each ciphertext records the id of the
 * key that sealed it, so keys can be rotated while old rows stay readable. The public key is
 * bound as associated data: a ciphertext copied onto another wallet's row fails to open.
 */
export class WalletCipher {
  private readonly keys = new Map<string, Buffer>();
  readonly currentKeyId: string;

  constructor(current: Buffer, previous: Buffer[] = []) {
    this.currentKeyId = WalletCipher.keyIdOf(current);
    this.keys.set(this.currentKeyId, current);
    for (const key of previous) this.keys.set(WalletCipher.keyIdOf(key), key);
  }

  /** A key's id is derived from the key, so no extra setting can drift out of step with it. */
  static keyIdOf(key: Buffer): string {
    return crypto.createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  seal(secret: string, publicKey: string): SealedSecret {
    const key = this.keys.get(this.currentKeyId)!;
    const iv = crypto.randomBytes(12);
    const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(publicKey, 'utf8'));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return { ciphertext: ['v1', iv.toString('base64'), tag.toString('base64'), body.toString('base64')].join('.'), keyId: this.currentKeyId };
  }

  open(sealed: SealedSecret, publicKey: string): string {
    const key = this.keys.get(sealed.keyId);
    if (!key) throw new Error(`wallet key ${sealed.keyId} is not configured`);
    const [version, iv, tag, body] = sealed.ciphertext.split('.');
    if (version !== 'v1' || !iv || !tag || !body) throw new Error('unrecognised wallet ciphertext');
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(publicKey, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }
}
