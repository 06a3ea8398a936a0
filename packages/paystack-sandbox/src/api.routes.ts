import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import type { ChargeService } from './charge.service';
import { PaystackSandboxError, type PaystackSandboxErrorCode } from './errors';
import { sandboxLogger } from './logger';
import { firstIssueMessage, initializeTransactionBody } from './schemas';
import { requireSecretKey } from './secret-key-auth';

// Paystack answers 400 even for an unknown reference, and the service's client expects it.
const STATUS_BY_CODE: Record<PaystackSandboxErrorCode, number> = {
  duplicate_reference: 400,
  reference_not_found: 400,
  access_code_not_found: 404,
};

/**
 * Absolute, and derived from the request, so the link works wherever the sandbox router is
 * mounted and whatever port the test or server picked.
 */
function checkoutUrl(req: Request, accessCode: string): string {
  return `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}/checkout/${encodeURIComponent(accessCode)}`;
}

function initialize(charges: ChargeService): RequestHandler {
  return async (req, res) => {
    const parsed = initializeTransactionBody.safeParse(req.body ?? {});
    if (!parsed.success) {
      res.status(400).json({ status: false, message: firstIssueMessage(parsed.error) });
      return;
    }
    const transaction = await charges.initialize(parsed.data);
    res.json({
      status: true,
      message: 'Authorization URL created',
      data: {
        authorization_url: checkoutUrl(req, transaction.accessCode),
        access_code: transaction.accessCode,
        reference: transaction.reference,
      },
    });
  };
}

function verify(charges: ChargeService): RequestHandler<{ reference: string }> {
  return (req, res) => {
    res.json({ status: true, message: 'Verification successful', data: charges.verify(req.params.reference) });
  };
}

/** Every failure leaves as Paystack's `{status:false, message}`, never as an HTML error page. */
const apiErrorHandler: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
  if (error instanceof PaystackSandboxError) {
    res.status(STATUS_BY_CODE[error.code]).json({ status: false, message: error.message });
    return;
  }
  // body-parser marks client mistakes (bad JSON, body too large) as safe to expose.
  const clientError = error as { expose?: boolean; status?: number; type?: string; message?: string };
  if (clientError.expose === true && typeof clientError.status === 'number') {
    const message = clientError.type === 'entity.parse.failed' ? 'Invalid JSON body' : (clientError.message ?? 'Bad request');
    res.status(clientError.status).json({ status: false, message });
    return;
  }
  sandboxLogger.error({ err: error }, 'paystack sandbox API request failed');
  res.status(500).json({ status: false, message: 'Internal sandbox error' });
};

/** Paystack's transaction API: a table of path -> secret-key auth -> handler. */
export function createApiRouter(charges: ChargeService, secretKey: string): Router {
  const router = Router();
  const auth = requireSecretKey(secretKey);
  const parseBody = [express.json(), express.urlencoded({ extended: false })];

  router.post('/transaction/initialize', auth, parseBody, initialize(charges));
  router.get('/transaction/verify/:reference', auth, verify(charges));
  router.use('/transaction', auth, (_req, res) => {
    res.status(404).json({ status: false, message: 'Not found in the Paystack sandbox' });
  });
  router.use(apiErrorHandler);
  return router;
}
