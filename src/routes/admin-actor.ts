import type { Response } from 'express';
import type { AdminActor } from '../domain/admin-log';

/**
 * The admin behind a request as the admin log records it: the signed-in admin (none yet on a
 * login: the service fills it in), the request's id and the client's address (as `TRUST_PROXY` reads it).
 */
export function actorOf(req: { id?: string; ip?: string }, res?: Response): AdminActor {
  const principal = res?.locals.principal;
  return { adminId: principal?.role === 'admin' ? principal.id : null, requestId: req.id, ip: req.ip };
}
