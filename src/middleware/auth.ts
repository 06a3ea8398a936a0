import type { Request, RequestHandler } from 'express';
import { AppError } from '../errors/app-error';
import { TokenError, type Role, type TokenScope, type TokenService } from '../security/tokens';

export interface Principal {
  id: string;
  role: Role;
  /** Set on a limited token (src/security/tokens.ts TokenScope). */
  scope?: TokenScope;
}

/**
 * Looks up the subject of a valid token: undefined when the account no longer exists (a deleted
 * user's token is dead), else the first JWT `iat` it accepts (src/security/sessions.ts: a password
 * reset or an e-mail change ends the sessions issued before it).
 */
export type PrincipalLookup = (principal: Principal) => Promise<number | undefined>;

declare module 'express-serve-static-core' {
  interface Locals {
    principal?: Principal;
  }
}

/** What a limited token may do instead of its work: the 403 tells the admin the way out. */
const SCOPE_REFUSAL: Record<TokenScope, string> = {
  'mfa-setup': 'MFA must be set up first: POST /api/admin/mfa/setup and /api/admin/mfa/confirm, then log in again with the one-time code',
};

/**
 * Requires a bearer token for one of the given roles. Missing, malformed, expired or forged
 * tokens, tokens of deleted accounts and tokens issued before the account's last credential
 * change are 401; a valid token of another role is 403, and so is a limited (scoped) token on a
 * route that does not take its scope (`acceptsScope`: the MFA setup routes take `mfa-setup`).
 */
export function authenticate(tokens: TokenService, lookup: PrincipalLookup) {
  return (roles: readonly Role[], acceptsScope?: TokenScope): RequestHandler =>
    async (req, res, next) => {
      const token = bearerToken(req);
      if (!token) throw new AppError('UNAUTHENTICATED', 'Authentication required');
      let claims;
      try {
        claims = tokens.verifyAccess(token);
      } catch (err) {
        if (err instanceof TokenError) {
          throw new AppError('UNAUTHENTICATED', err.reason === 'expired' ? 'Token expired' : 'Invalid token');
        }
        throw err;
      }
      const principal: Principal = claims.scope === undefined ? { id: claims.sub, role: claims.role } : { id: claims.sub, role: claims.role, scope: claims.scope };
      const firstAcceptedIat = await lookup(principal);
      if (firstAcceptedIat === undefined) throw new AppError('UNAUTHENTICATED', 'Account no longer exists');
      if (claims.iat < firstAcceptedIat) throw new AppError('UNAUTHENTICATED', 'Session ended: the credentials changed, log in again');
      if (!roles.includes(principal.role)) throw new AppError('FORBIDDEN', 'Not allowed for this account');
      if (principal.scope !== undefined && principal.scope !== acceptsScope) throw new AppError('FORBIDDEN', SCOPE_REFUSAL[principal.scope]);
      res.locals.principal = principal;
      next();
    };
}

function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  // The scheme is case-insensitive (RFC 7235).
  const match = /^Bearer ([A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*)$/i.exec(header.trim());
  return match?.[1];
}

/** The principal set by `authenticate`; routes that call this declared auth. */
export function principalOf(res: { locals: { principal?: Principal } }): Principal {
  const principal = res.locals.principal;
  if (!principal) throw new AppError('UNAUTHENTICATED', 'Authentication required');
  return principal;
}

/**
 * Remembers, for a short time, that a token's subject exists and since when its tokens count, so
 * that every authenticated request does not pay a database round trip. A deletion, password reset
 * or e-mail change made in this process is seen at once (the service calls forget); one made by
 * another process is seen within ttlMs (2 s in the service): that is the cross-process bound.
 */
export class PrincipalCache {
  private readonly seen = new Map<string, { until: number; firstAcceptedIat: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 100_000,
  ) {}

  wrap(lookup: PrincipalLookup): PrincipalLookup {
    return async (principal) => {
      const key = `${principal.role}:${principal.id}`;
      const cached = this.seen.get(key);
      if (cached !== undefined && cached.until > Date.now()) return cached.firstAcceptedIat;
      const firstAcceptedIat = await lookup(principal);
      if (firstAcceptedIat !== undefined) {
        if (this.seen.size >= this.maxEntries) this.seen.clear();
        this.seen.set(key, { until: Date.now() + this.ttlMs, firstAcceptedIat });
      } else this.seen.delete(key);
      return firstAcceptedIat;
    };
  }

  forget(principal: Principal): void {
    this.seen.delete(`${principal.role}:${principal.id}`);
  }
}
