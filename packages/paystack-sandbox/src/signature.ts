import { createHmac } from 'node:crypto';

/**
 * Computes the value Paystack puts in `x-paystack-signature`: the hex HMAC-SHA512 of the
 * exact body bytes, keyed with the merchant's secret key. Receivers must hash the raw bytes
 * they got, not a re-serialised JSON object, or key order and whitespace will break the match.
 */
export function signPaystackPayload(rawBody: string | Buffer, secretKey: string): string {
  return createHmac('sha512', secretKey).update(rawBody).digest('hex');
}
