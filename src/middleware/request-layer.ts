import type { Express, RequestHandler } from 'express';
import { setSecurityHeaders } from '../http/security-headers';
import type { Logger } from '../logger';
import type { ServiceMetrics } from '../metrics/metrics';
import { labelMatchedRoutes } from '../metrics/route-label';
import { corsHandler } from './cors';
import { installRequestContext } from './request-context';

export interface RequestLayerDeps {
  logger: Logger;
  metrics?: ServiceMetrics;
  corsOrigins: readonly string[];
}

const ignored = () => undefined;

/**
 * Everything the service does to every request before routing, as one app-level layer, in the
 * order the separate middlewares ran: the request id and its log line, the metrics observation,
 * the security headers, then CORS (which answers a preflight itself). Each was an Express layer
 * of its own, matched and called through the router for every request; helmet alone ran a dozen.
 */
export function requestLayer(app: Express, deps: RequestLayerDeps): RequestHandler {
  const startRequest = installRequestContext(app, deps.logger);
  if (deps.metrics) labelMatchedRoutes(app);
  const observe = deps.metrics?.observeRequests;
  const cors = corsHandler(deps.corsOrigins);
  return (req, res, next) => {
    startRequest(req, res);
    // observeRequests is a middleware that only hooks the response's end and calls next() at once.
    if (observe) void observe(req, res, ignored);
    setSecurityHeaders(res);
    cors(req, res, next);
  };
}
