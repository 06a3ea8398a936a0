import cors from 'cors';
import type { NextFunction, Request, Response } from 'express';

/** What the browser may read of a cross-origin answer besides the simple headers. */
const EXPOSED_HEADERS = 'X-Request-Id,X-Total-Count';

/**
 * CORS from CORS_ORIGINS, exactly as `cors({ origin: origins || false, exposedHeaders })` (cors
 * 2.8) behaves, as a call inside the app's one request layer rather than a layer of its own.
 * Preflights (OPTIONS) go to the cors package itself; an ordinary request gets the same headers
 * it would set, without its per-request options object: the allowed origin echoed, `Vary: Origin`
 * and the exposed headers, whatever the origin (nothing when no origin is configured).
 */
export function corsHandler(origins: readonly string[]): (req: Request, res: Response, next: NextFunction) => void {
  const preflight = cors({ origin: origins.length > 0 ? [...origins] : false, exposedHeaders: EXPOSED_HEADERS.split(',') });
  if (origins.length === 0) {
    // cors with origin false calls next() for every request, preflight included.
    return (_req, _res, next) => next();
  }
  const allowed = new Set(origins);
  return (req, res, next) => {
    if (req.method === 'OPTIONS') {
      preflight(req, res, next);
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && allowed.has(origin)) res.setHeader('Access-Control-Allow-Origin', origin);
    // Nothing before this layer sets Vary, so setting it is what cors's vary(res, 'Origin') does here.
    res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
    next();
  };
}
