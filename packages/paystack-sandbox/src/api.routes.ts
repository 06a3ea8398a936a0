import express, { Router, type Request, type RequestHandler } from 'express';
import { apiErrorHandler, parseOrReject } from './api-error-handler';
import type { ChargeService } from './charge.service';
import { PaystackSandboxError } from './errors';
import type { RefundService } from './refund.service';
import { createRefundBody, initializeTransactionBody, listTransactionsQuery } from './schemas';
import { requireSecretKey } from './secret-key-auth';

/**
 * Absolute: at the public address the sandbox was given, else derived from the request, so the
 * link works wherever the sandbox router is mounted and whatever port the test or server picked.
 */
function checkoutUrl(req: Request, accessCode: string, publicUrl: string | undefined): string {
  const base = publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}${req.baseUrl}`;
  return `${base}/checkout/${encodeURIComponent(accessCode)}`;
}

function initialize(charges: ChargeService, publicUrl: string | undefined): RequestHandler {
  return async (req, res) => {
    const body = parseOrReject(initializeTransactionBody, req.body ?? {}, res);
    if (!body) return;
    const transaction = await charges.initialize(body);
    res.json({
      status: true,
      message: 'Authorization URL created',
      data: {
        authorization_url: checkoutUrl(req, transaction.accessCode, publicUrl),
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

function listTransactions(charges: ChargeService): RequestHandler {
  return (req, res) => {
    const query = parseOrReject(listTransactionsQuery, req.query, res);
    if (!query) return;
    res.json({ status: true, message: 'Transactions retrieved', ...charges.list(query) });
  };
}

function createRefund(refunds: RefundService): RequestHandler {
  return async (req, res) => {
    const body = parseOrReject(createRefundBody, req.body ?? {}, res);
    if (!body) return;
    const data = await refunds.create({ transaction: body.transaction, amount: body.amount });
    res.json({ status: true, message: 'Refund has been queued for processing', data });
  };
}

function fetchRefund(refunds: RefundService): RequestHandler<{ id: string }> {
  return (req, res) => {
    const id = Number(req.params.id);
    if (!Number.isSafeInteger(id)) throw new PaystackSandboxError('refund_not_found', 'Refund not found');
    res.json({ status: true, message: 'Refund retrieved', data: refunds.fetch(id) });
  };
}

/** Paystack lists every refund of the integration; the sandbox needs only "the refunds of this charge". */
function listRefunds(refunds: RefundService): RequestHandler {
  return (req, res) => {
    const transaction = req.query.transaction ?? req.query.reference;
    if (typeof transaction !== 'string' || transaction === '') {
      res.status(400).json({ status: false, message: 'Pass the transaction reference or id as ?transaction=' });
      return;
    }
    res.json({ status: true, message: 'Refunds retrieved', data: refunds.listFor(transaction) });
  };
}

/** Paystack's transaction and refund API: a table of path -> secret-key auth -> handler. */
export function createApiRouter(charges: ChargeService, refunds: RefundService, secretKey: string, publicUrl?: string): Router {
  const router = Router();
  const auth = requireSecretKey(secretKey);
  const parseBody = [express.json(), express.urlencoded({ extended: false })];

  router.post('/transaction/initialize', auth, parseBody, initialize(charges, publicUrl));
  router.get('/transaction', auth, listTransactions(charges));
  router.get('/transaction/verify/:reference', auth, verify(charges));
  router.post('/refund', auth, parseBody, createRefund(refunds));
  router.get('/refund', auth, listRefunds(refunds));
  router.get('/refund/:id', auth, fetchRefund(refunds));
  for (const prefix of ['/transaction', '/refund']) {
    router.use(prefix, auth, (_req, res) => {
      res.status(404).json({ status: false, message: 'Not found in the Paystack sandbox' });
    });
  }
  router.use(apiErrorHandler);
  return router;
}
