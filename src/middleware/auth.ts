import type { Request, RequestHandler } from 'express';
import { AppError } from '../errors/app-error';
import { TokenError, type Role, type TokenService } from '../security/tokens';

export interface Principal {
  id: string;
  role: Role;
}

/** Answers whether the subject of a valid token still exists (a deleted user's token is dead). */
export type PrincipalExists = (principal: Principal) => Promise<boolean>;

declare module 'express-serve-static-core' {
  interface Locals {
    principal?: Principal;
  }
}

/**
 * Requires a bearer token for one of the given roles. Missing, malformed, expired or forged
 * tokens, and tokens of deleted accounts, are 401; a valid token of another role is 403.
 */
export function authenticate(tokens: TokenService, exists: PrincipalExists) {
  return (...roles: Role[]): RequestHandler =>
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
      const principal: Principal = { id: claims.sub, role: claims.role };
      if (!(await exists(principal))) throw new AppError('UNAUTHENTICATED', 'Account no longer exists');
      if (!roles.includes(principal.role)) throw new AppError('FORBIDDEN', 'Not allowed for this account');
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
 * Remembers, for a short time, that a token's subject exists, so that every authenticated request
 * does not pay a database round trip. Deletion in this process is seen at once (forget); another
 * process sees it within ttlMs.
 */
export class PrincipalCache {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 100_000,
  ) {}

  wrap(exists: PrincipalExists): PrincipalExists {
    return async (principal) => {
      const key = `${principal.role}:${principal.id}`;
      const until = this.seen.get(key);
      if (until !== undefined && until > Date.now()) return true;
      const found = await exists(principal);
      if (found) {
        if (this.seen.size >= this.maxEntries) this.seen.clear();
        this.seen.set(key, Date.now() + this.ttlMs);
      } else this.seen.delete(key);
      return found;
    };
  }

  forget(principal: Principal): void {
    this.seen.delete(`${principal.role}:${principal.id}`);
  }
}
