import type { Express, Request, RequestHandler } from 'express';
import { setSecurityHeaders } from '../http/security-headers';
import type { Logger } from '../logger';
import type { ServiceMetrics } from '../metrics/metrics';
import { labelMatchedRoutes, routeLabel } from '../metrics/route-label';
import { corsHandler } from './cors';
import { installRequestContext } from './request-context';

export interface RequestLayerDeps {
  logger: Logger;
  metrics?: ServiceMetrics;
  corsOrigins: readonly string[];
}

/**
 * Everything the service does to every request before routing, as one app-level layer, in the
 * order the separate middlewares ran: the request id and its log line, the metrics observation,
 * the security headers, then CORS (which answers a preflight itself). Each was an Express layer
 * of its own, matched and called through the router for every request; helmet alone ran a dozen.
 */
export function requestLayer(app: Express, deps: RequestLayerDeps): RequestHandler {
  const observe = deps.metrics?.observeRequest;
  if (observe) labelMatchedRoutes(app);
  // The metrics time a request from the same start, in the same 'close' listener, as its log line.
  const startRequest = installRequestContext(
    app,
    deps.logger,
    observe && ((req, statusCode, seconds) => observe(req.method ?? '', routeLabel(req as Request), statusCode, seconds)),
  );
  const cors = corsHandler(deps.corsOrigins);
  return (req, res, next) => {
    startRequest(req, res);
    setSecurityHeaders(res);
    cors(req, res, next);
  };
}
