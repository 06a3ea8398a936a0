import jwt from 'jsonwebtoken';
import { TEST_JWT_SECRET } from './test-app';

export interface ForgedTokens {
  garbage: string;
  wrongSignature: string;
  algNone: string;
  expired: string;
  otherAlgorithm: string;
  tamperedRole: string;
  resetToken: string;
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * Tokens an attacker can make for `subject`: none passes. `validUserToken` is a real user token,
 * whose payload is re-encoded with the admin role under its original signature.
 */
export function forgeTokens(subject: string, validUserToken: string, resetToken: string): ForgedTokens {
  const now = Math.floor(Date.now() / 1000);
  const [header, , signature] = validUserToken.split('.');
  return {
    garbage: 'not-a-jwt',
    wrongSignature: jwt.sign({ role: 'admin' }, 'another-secret-that-is-long-enough-for-hs256!', { algorithm: 'HS256', subject, expiresIn: 3600 }),
    algNone: `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: subject, role: 'admin', iat: now, exp: now + 3600 })}.`,
    expired: jwt.sign({ role: 'admin', iat: now - 7200, exp: now - 3600 }, TEST_JWT_SECRET, { algorithm: 'HS256', subject }),
    otherAlgorithm: jwt.sign({ role: 'admin' }, TEST_JWT_SECRET, { algorithm: 'HS512', subject, expiresIn: 3600 }),
    tamperedRole: `${header}.${b64url({ sub: subject, role: 'admin', iat: now, exp: now + 3600 })}.${signature}`,
    resetToken,
  };
}
