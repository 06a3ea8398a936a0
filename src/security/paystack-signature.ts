import { createHmac, timingSafeEqual } from 'node:crypto';

/** A SHA-512 digest is 64 bytes: 128 hex digits. */
const SIGNATURE_HEX = /^[0-9a-f]{128}$/i;

/**
 * Checks Paystack's `x-paystack-signature`: the hex HMAC-SHA512 of the exact request bytes,
 * keyed with the merchant's secret key. It must be given the raw body as received; a re-serialised
 * JSON object differs in key order or whitespace and would never match.
 *
 * Paystack sends lowercase hex. Hex letter case carries no meaning, so uppercase is accepted too:
 * the comparison is on the decoded bytes. Anything that is not exactly 128 hex digits is refused
 * before comparing, so `timingSafeEqual` always sees two 64-byte buffers and never throws, and the
 * digest bytes themselves are compared in constant time.
 */
export function isValidPaystackSignature(rawBody: Buffer, signatureHeader: string | undefined, secretKey: string): boolean {
  if (signatureHeader === undefined || secretKey === '') return false;
  const presentedHex = signatureHeader.trim();
  if (!SIGNATURE_HEX.test(presentedHex)) return false;
  const expected = createHmac('sha512', secretKey).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(presentedHex, 'hex'), expected);
}
