import crypto from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';

export type Role = 'user' | 'admin';

/**
 * A limited access token: `mfa-setup` is what an admin without MFA gets at login while
 * ADMIN_MFA_REQUIRED is on. Only the routes that declare the scope take it (the MFA setup and
 * confirm routes); every other route answers it 403.
 */
export type TokenScope = 'mfa-setup';

const LIFETIME_SECONDS = { user: 60 * 60, admin: 2 * 60 * 60, reset: 60 * 60 } as const;

const accessClaims = z
  .object({ sub: z.uuid(), role: z.enum(['user', 'admin']), scope: z.literal('mfa-setup').optional(), iat: z.number(), exp: z.number() })
  .refine((c) => c.scope === undefined || c.role === 'admin', 'only an admin token has a scope');
const resetClaims = z.object({
  sub: z.uuid(),
  jti: z.uuid(),
  purpose: z.literal('password-reset'),
  iat: z.number(),
  exp: z.number(),
});

export type AccessClaims = z.infer<typeof accessClaims>;
export type ResetClaims = z.infer<typeof resetClaims>;

/** Why a token was refused: an expired token and a forged one get different answers. */
export class TokenError extends Error {
  constructor(readonly reason: 'expired' | 'invalid') {
    super(reason === 'expired' ? 'token expired' : 'token invalid');
  }
}

/** Signs and checks every JWT of the service; HS256 only, pinned on verify so `alg: none` never passes. */
export class TokenService {
  /**
   * A KeyObject, not the string: given a string, jsonwebtoken tries it as a PEM/DER public (verify)
   * or private (sign) key first, and that failed parse, with its thrown error, costs more than the
   * HMAC itself on every request.
   */
  private readonly secret: crypto.KeyObject;

  constructor(secret: string) {
    this.secret = crypto.createSecretKey(Buffer.from(secret, 'utf8'));
  }

  /** An access token; with a scope, one that only the routes declaring that scope take. */
  issueAccess(subject: string, role: Role, scope?: TokenScope): string {
    return jwt.sign(scope === undefined ? { role } : { role, scope }, this.secret, { algorithm: 'HS256', subject, expiresIn: LIFETIME_SECONDS[role] });
  }

  issueReset(userId: string): { token: string; jti: string; expiresAt: Date } {
    const jti = crypto.randomUUID();
    const token = jwt.sign({ purpose: 'password-reset' }, this.secret, {
      algorithm: 'HS256',
      subject: userId,
      jwtid: jti,
      expiresIn: LIFETIME_SECONDS.reset,
    });
    return { token, jti, expiresAt: new Date(Date.now() + LIFETIME_SECONDS.reset * 1000) };
  }

  verifyAccess(token: string): AccessClaims {
    return this.verify(token, accessClaims);
  }

  verifyReset(token: string): ResetClaims {
    return this.verify(token, resetClaims);
  }

  private verify<T>(token: string, shape: z.ZodType<T>): T {
    let payload: unknown;
    try {
      payload = jwt.verify(token, this.secret, { algorithms: ['HS256'] });
    } catch (err) {
      throw new TokenError(err instanceof jwt.TokenExpiredError ? 'expired' : 'invalid');
    }
    // A reset token must never pass as an access token, nor the reverse: the claims decide.
    const parsed = shape.safeParse(payload);
    if (!parsed.success) throw new TokenError('invalid');
    return parsed.data;
  }
}
