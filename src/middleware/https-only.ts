import type { RequestHandler } from 'express';
import { AppError } from '../errors/app-error';

/**
 * Responses that carry a secret (a wallet's secret key; an admin's MFA secret or recovery codes)
 * go only over HTTPS when required (production), and are
 * never cached. Behind a TLS-terminating proxy, TRUST_PROXY makes X-Forwarded-Proto count.
 */
export function secretResponse(requireHttps: boolean): RequestHandler {
  return (req, res, next) => {
    if (requireHttps && !req.secure) throw new AppError('FORBIDDEN', 'This endpoint is only available over HTTPS');
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
}
