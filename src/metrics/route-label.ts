import type { Request } from 'express';

/** The label of requests that matched no route: one series, whatever the URL (no unbounded cardinality). */
export const UNMATCHED_ROUTE = '(unmatched)';

const segments = (p: string) => p.split('/').filter(Boolean);

/**
 * The route pattern that answered a request, e.g. `/api/ledger/transactions/:userId`, never the
 * raw URL. Express knows the matched pattern (`req.route.path`) but only the mount path while the
 * request is inside the router: an error answered by the app-level handler has left it. So the
 * mount path is recovered from the URL instead: the pattern matched its last segments, the mount
 * path is what comes before them.
 */
export function routeLabel(req: Request): string {
  const pattern = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof pattern !== 'string') return UNMATCHED_ROUTE;
  const patternSegments = segments(pattern);
  // Wildcards and optional segments don't map one segment to one segment; fall back to baseUrl.
  if (/[*?(){}]/.test(pattern)) return join(req.baseUrl, patternSegments);
  const urlSegments = segments((req.originalUrl.split('?')[0] ?? '').replace(/\/+$/, ''));
  const mount = urlSegments.slice(0, Math.max(0, urlSegments.length - patternSegments.length));
  return join(`/${mount.join('/')}`, patternSegments);
}

function join(mount: string, patternSegments: string[]): string {
  const all = [...segments(mount), ...patternSegments];
  return `/${all.join('/')}`;
}
