import { createHmac } from 'node:crypto';
import { signPaystackPayload } from '@wallet/paystack-sandbox';
import { isValidPaystackSignature } from '../../src/security/paystack-signature';

const SECRET = 'sk_test_webhook_secret';
const body = Buffer.from('{"event":"charge.success","data":{"reference":"ref-1","amount":500000}}');
const signatureOf = (raw: Buffer, secret = SECRET) => createHmac('sha512', secret).update(raw).digest('hex');

describe('isValidPaystackSignature', () => {
  it('accepts the HMAC-SHA512 hex of the raw body keyed with the secret', () => {
    expect(isValidPaystackSignature(body, signatureOf(body), SECRET)).toBe(true);
  });

  it('accepts what the sandbox signs its webhooks with', () => {
    expect(isValidPaystackSignature(body, signPaystackPayload(body, SECRET), SECRET)).toBe(true);
  });

  it('rejects a body changed after signing, even by whitespace', () => {
    const signature = signatureOf(body);

    expect(isValidPaystackSignature(Buffer.from(body.toString().replace('500000', '900000')), signature, SECRET)).toBe(false);
    expect(isValidPaystackSignature(Buffer.concat([body, Buffer.from(' ')]), signature, SECRET)).toBe(false);
  });

  it('rejects a signature made with another secret', () => {
    expect(isValidPaystackSignature(body, signatureOf(body, 'sk_test_someone_else'), SECRET)).toBe(false);
  });

  it('rejects a missing or empty header', () => {
    expect(isValidPaystackSignature(body, undefined, SECRET)).toBe(false);
    expect(isValidPaystackSignature(body, '', SECRET)).toBe(false);
  });

  it('refuses to validate anything with an empty secret', () => {
    expect(isValidPaystackSignature(body, signatureOf(body, ''), '')).toBe(false);
  });

  it('rejects a truncated or extended signature without throwing', () => {
    const signature = signatureOf(body);

    expect(isValidPaystackSignature(body, signature.slice(0, -2), SECRET)).toBe(false);
    expect(isValidPaystackSignature(body, signature.slice(0, 64), SECRET)).toBe(false);
    expect(isValidPaystackSignature(body, `${signature}00`, SECRET)).toBe(false);
    expect(isValidPaystackSignature(body, `${signature}0`, SECRET)).toBe(false);
  });

  it('rejects non-hex input of the right length without throwing', () => {
    const signature = signatureOf(body);

    expect(isValidPaystackSignature(body, `${signature.slice(0, -2)}zz`, SECRET)).toBe(false);
    expect(isValidPaystackSignature(body, 'g'.repeat(128), SECRET)).toBe(false);
    // Node's hex decoder stops at the first bad digit; a valid prefix must not be enough.
    expect(isValidPaystackSignature(body, `${signature.slice(0, 126)}-1`, SECRET)).toBe(false);
    expect(isValidPaystackSignature(body, Buffer.from(signatureOf(body), 'hex').toString('base64'), SECRET)).toBe(false);
  });

  it('accepts uppercase hex: Paystack sends lowercase, but hex case carries no meaning', () => {
    expect(isValidPaystackSignature(body, signatureOf(body).toUpperCase(), SECRET)).toBe(true);
  });

  it('checks the bytes it was given, so an empty body still needs its own signature', () => {
    const empty = Buffer.alloc(0);

    expect(isValidPaystackSignature(empty, signatureOf(empty), SECRET)).toBe(true);
    expect(isValidPaystackSignature(empty, signatureOf(body), SECRET)).toBe(false);
  });
});
