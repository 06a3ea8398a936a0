import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import { callbackUrlWithReference } from './callback-url';
import type { ChargeService, CheckoutAction } from './charge.service';
import { renderCheckoutPage, renderNotFoundPage, renderResultPage } from './checkout-page';
import { PaystackSandboxError } from './errors';
import { sandboxLogger } from './logger';

type CheckoutParams = { accessCode: string };

/**
 * The pages carry no script and load nothing, so the policy can forbid everything but inline
 * style. `form-action` is deliberately left open: the buttons' redirects go to the merchant.
 */
const htmlHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  next();
};

function showCheckout(charges: ChargeService): RequestHandler<CheckoutParams> {
  return (req, res) => {
    const transaction = charges.findForCheckout(req.params.accessCode);
    const actionBase = `${req.baseUrl}/checkout/${encodeURIComponent(transaction.accessCode)}`;
    res.type('html').send(renderCheckoutPage(transaction, actionBase));
  };
}

/** 303 so the browser follows with a GET, like leaving Paystack's checkout. */
function completeCheckout(charges: ChargeService, action: CheckoutAction): RequestHandler<CheckoutParams> {
  return async (req, res) => {
    const transaction = await charges.completeCheckout(req.params.accessCode, action);
    if (transaction.callbackUrl === null) {
      res.type('html').send(renderResultPage(transaction));
      return;
    }
    res.redirect(303, callbackUrlWithReference(transaction.callbackUrl, transaction.reference));
  };
}

const checkoutErrorHandler: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
  if (error instanceof PaystackSandboxError && error.code === 'access_code_not_found') {
    res.status(404).type('html').send(renderNotFoundPage());
    return;
  }
  sandboxLogger.error({ err: error }, 'paystack sandbox checkout request failed');
  res.status(500).type('text').send('The Paystack sandbox could not handle this checkout.');
};

/** The buyer-facing pages `authorization_url` points at; no API key, just the access code. */
export function createCheckoutRouter(charges: ChargeService): Router {
  const router = Router();
  router.use('/checkout', htmlHeaders);
  router.get('/checkout/:accessCode', showCheckout(charges));
  router.post('/checkout/:accessCode/pay', completeCheckout(charges, 'pay'));
  router.post('/checkout/:accessCode/decline', completeCheckout(charges, 'decline'));
  router.post('/checkout/:accessCode/cancel', completeCheckout(charges, 'cancel'));
  router.use('/checkout', checkoutErrorHandler);
  return router;
}
