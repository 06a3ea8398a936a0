import crypto from 'node:crypto';
import { WalletCipher } from '../../src/security/wallet-cipher';

const key = () => crypto.randomBytes(32);

describe('WalletCipher', () => {
  it('seals a secret so that only the same key and public key open it', () => {
    const cipher = new WalletCipher(key());
    const sealed = cipher.seal('SSECRET', 'GPUBLIC');
    expect(sealed.ciphertext).not.toContain('SSECRET');
    expect(sealed.keyId).toBe(cipher.currentKeyId);
    expect(cipher.open(sealed, 'GPUBLIC')).toBe('SSECRET');
    expect(() => cipher.open(sealed, 'GOTHER')).toThrow();
    expect(() => new WalletCipher(key()).open(sealed, 'GPUBLIC')).toThrow(/not configured/);
  });

  it('keeps secrets sealed under a previous key readable after rotation', () => {
    const oldKey = key();
    const sealed = new WalletCipher(oldKey).seal('SSECRET', 'GPUBLIC');
    const rotated = new WalletCipher(key(), [oldKey]);
    expect(rotated.open(sealed, 'GPUBLIC')).toBe('SSECRET');
    expect(rotated.seal('SSECRET', 'GPUBLIC').keyId).not.toBe(sealed.keyId);
  });

  it('detects a tampered ciphertext', () => {
    const cipher = new WalletCipher(key());
    const sealed = cipher.seal('SSECRET', 'GPUBLIC');
    const parts = sealed.ciphertext.split('.');
    parts[3] = Buffer.from('tampered').toString('base64');
    expect(() => cipher.open({ ...sealed, ciphertext: parts.join('.') }, 'GPUBLIC')).toThrow();
  });
});
