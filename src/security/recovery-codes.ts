import crypto from 'node:crypto';
import { Secret } from 'otpauth';

/**
 * An admin's recovery codes: what logs in when the authenticator is lost. Each is 80 random bits
 * written as 16 base32 characters in four groups (`K7QH-2MXA-PL4D-W3ZB`: RFC 4648 letters and
 * the digits 2-7, so no 0 or 1 to misread as O or I). 80 bits is why a SHA-256 of the code is enough at rest
 * (src/db/admin-mfa-schema.ts says why not bcrypt).
 */
export const RECOVERY_CODE_COUNT = 10;
const CODE_BYTES = 10;

/** A recovery code as a login may send it: any case, dashes or none. */
export const RECOVERY_CODE = /^[A-Za-z2-7]{4}(-?[A-Za-z2-7]{4}){3}$/;

export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  // otpauth's Secret is random bytes with a base32 spelling: 10 bytes are 16 characters, unpadded.
  return Array.from({ length: count }, () => new Secret({ size: CODE_BYTES }).base32.match(/.{4}/g)!.join('-'));
}

/** What is stored for a code: hex SHA-256 of its normalised form (upper case, no dashes). */
export function recoveryCodeHash(code: string): string {
  return crypto.createHash('sha256').update(code.replace(/-/g, '').toUpperCase()).digest('hex');
}
