import type { Response } from 'express';
import type { ErrorDetail } from '../errors/app-error';

/** Each route group keeps its documented error body for every error it returns (CONTRACT 4). */
export type RouteGroup = 'users' | 'admin' | 'ledger' | 'payments' | 'other';

export function groupOf(path: string): RouteGroup {
  const match = /^\/api\/(users|admin|ledger|payments)(\/|$)/.exec(path);
  return (match?.[1] as RouteGroup | undefined) ?? 'other';
}

export function errorBody(group: RouteGroup, message: string, details?: ErrorDetail[]): Record<string, unknown> {
  const extra = details && details.length > 0 ? { details } : {};
  switch (group) {
    case 'admin':
      return { message, ...extra };
    case 'payments':
      return { success: false, message, ...extra };
    default:
      return { error: message, ...extra };
  }
}

export function sendError(res: Response, status: number, message: string, details?: ErrorDetail[]): void {
  res.status(status).json(errorBody(groupOf(res.req.originalUrl), message, details));
}
