import { StrKey } from '@stellar/stellar-sdk';

// A lookahead, so overlapping runs are each tried (a seed may start inside a longer run).
const SEED_SHAPE = /(?=(S[A-Z2-7]{55}))/g;

/**
 * Every Stellar secret seed in `text`. The shape alone (`S` and 55 base32 characters) also matches
 * inside base64 (an envelope's XDR has long runs of uppercase letters): a run counts only when it
 * is a real seed, version byte and CRC16 checksum included, which random text passes about once in
 * 65,536 tries at best.
 */
export function stellarSeedsIn(text: string): string[] {
  return [...text.matchAll(SEED_SHAPE)].map((m) => m[1]!).filter((candidate) => StrKey.isValidEd25519SecretSeed(candidate));
}

/** An otpauth:// URI: it carries an admin's TOTP secret in clear (only the MFA setup answer may). */
export const OTPAUTH_URI = /otpauth:\/\/[^\s"'<>]+/;

/** A recovery code of admin MFA as the confirm answer hands it out (src/security/recovery-codes.ts). */
export const RECOVERY_CODE_SHAPE = /\b[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}\b/;
