import type { Express, Request } from 'express';

/** The label of requests that matched no route: one series, whatever the URL (no unbounded cardinality). */
export const UNMATCHED_ROUTE = '(unmatched)';

/** Where a request keeps the route Express matched and the label it was given then. */
const MATCHED = Symbol('matchedRoute');

interface Match {
  route: unknown;
  baseUrl: string;
  label: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    [MATCHED]?: Match;
  }
}

/**
 * Labels every request with the full pattern of the route that answered it, e.g.
 * `/api/ledger/transactions/:userId`, never the raw URL. The label is taken when Express matches
 * the route: `req.baseUrl` is then the path the route's router is mounted at, which it no longer
 * is once an error has left the router for the app-level error handler. Express records the match
 * by assigning `req.route`, so the app's request prototype gets an accessor for it (as it does
 * for `req.log`): no work for a request beyond that one assignment and a lookup.
 */
export function labelMatchedRoutes(app: Express): void {
  // Routes are made once, at startup: each keeps the match it was last labelled with, so a request
  // reuses that object (no split and join, no allocation) unless its router is mounted elsewhere too.
  const matches = new WeakMap<object, Match>();
  Object.defineProperty(app.request, 'route', {
    configurable: true,
    get(this: Request): unknown {
      return this[MATCHED]?.route;
    },
    set(this: Request, route: { path?: unknown }) {
      const baseUrl = this.baseUrl;
      let match = matches.get(route);
      if (match?.baseUrl !== baseUrl) {
        match = { route, baseUrl, label: labelOf(baseUrl, route.path) };
        matches.set(route, match);
      }
      this[MATCHED] = match;
    },
  });
}

/** The route label of a request of an app set up with labelMatchedRoutes. */
export function routeLabel(req: Request): string {
  return req[MATCHED]?.label ?? UNMATCHED_ROUTE;
}

/** `/api/payments/webhook` + `/` -> `/api/payments/webhook`; a pattern that is not a string has no label. */
function labelOf(mountPath: string, pattern: unknown): string {
  if (typeof pattern !== 'string') return UNMATCHED_ROUTE;
  const segments = `${mountPath}/${pattern}`.split('/').filter(Boolean);
  return `/${segments.join('/')}`;
}
