import { Secret, TOTP } from 'otpauth';

/**
 * Admin one-time codes: TOTP (RFC 6238) as every authenticator app reads it from an otpauth://
 * URI: HMAC-SHA-1, 6 digits, a 30-second step, through the maintained `otpauth` package.
 */
const PERIOD_SECONDS = 30;
const DIGITS = 6;
const ALGORITHM = 'SHA1';
/** Steps either side of now a code may come from: one step of clock drift between phone and server. */
const DRIFT_WINDOW = 1;
/** 160 bits, the HMAC-SHA-1 key size RFC 4226 recommends. */
const SECRET_BYTES = 20;

/** A 6-digit TOTP code, as a login or a confirmation sends it. */
export const TOTP_CODE = /^\d{6}$/;

/** A new random secret, base32 (the form an otpauth:// URI carries). */
export function newTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

/** The otpauth:// URI an authenticator app enrols from (shown as text and as a QR code). */
export function totpUri(secret: string, issuer: string, account: string): string {
  return totpOf(secret, issuer, account).toString();
}

/**
 * The time step (unix seconds / 30) `code` belongs to, looking one step either side of `nowMs`;
 * undefined when it matches none. The caller decides whether that step was already used.
 */
export function totpStep(secret: string, code: string, nowMs: number): number | undefined {
  if (!TOTP_CODE.test(code)) return undefined;
  const delta = totpOf(secret).validate({ token: code, timestamp: nowMs, window: DRIFT_WINDOW });
  return delta === null ? undefined : TOTP.counter({ period: PERIOD_SECONDS, timestamp: nowMs }) + delta;
}

function totpOf(secret: string, issuer?: string, label?: string): TOTP {
  return new TOTP({ issuer, label, secret: Secret.fromBase32(secret), algorithm: ALGORITHM, digits: DIGITS, period: PERIOD_SECONDS });
}
