import express, { Router } from 'express';
import { z } from 'zod';
import { formatKobo } from '../domain/amounts';
import { AppError } from '../errors/app-error';
import { nairaAmountSchema, tokenAmountSchema } from '../http/amount-schemas';
import { uuidParam } from '../http/schemas';
import { principalOf } from '../middleware/auth';
import { idempotencyOf, idempotent } from '../middleware/idempotency';
import { isValidPaystackSignature } from '../security/paystack-signature';
import type { LedgerService } from '../services/ledger.service';
import type { WebhookInboxService } from '../services/webhook-inbox.service';
import { readProviderEvent } from '../http/webhook-event';
import type { PaymentService, SettleOutcome } from '../services/payment.service';
import { callbackFailurePage, callbackPage, callbackReference, NO_REFERENCE } from './callback-pages';
import { actorOf } from './admin-actor';
import { defineRoute } from './define-route';
import { mintAnswer, sendMintRequest } from './money-creation-answers';
import type { RouteDef } from './route-table';
import type { RateLimits } from '../middleware/rate-limit';

export const intentBody = z.object({ amount: nairaAmountSchema }).strict();
export const verifyBody = z.object({ reference: z.string().trim().min(1).max(100) }).strict();
export const mintBody = z.object({ userId: uuidParam, amount: tokenAmountSchema }).strict();

export interface PaymentRouteDeps {
  payments: PaymentService;
  rateLimits: RateLimits;
  ledger: LedgerService;
  tokenCode: string;
}

/** kobo as the JSON number of Naira the spec answers with (exact for any realistic amount). */
const nairaNumber = (kobo: bigint) => Number(formatKobo(kobo));

export function paymentsRoutes(deps: PaymentRouteDeps): RouteDef[] {
  const { payments, ledger } = deps;
  return [
    defineRoute({
      method: 'post',
      path: '/create-payment-intent',
      access: 'user',
      summary: 'Start a Naira payment; answers the provider data with authorization_url and reference',
      request: { body: intentBody },
      response: { status: 200, schema: z.object({ authorization_url: z.string(), access_code: z.string(), reference: z.string() }).passthrough() },
      handler: async (req, res) => {
        const { amount } = req.body;
        res.json(await payments.createIntent(principalOf(res).id, amount));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/verify-payment',
      access: 'any',
      summary: 'Verify a payment by reference and mint its tokens (once per reference)',
      request: { body: verifyBody },
      response: { status: 200, schema: z.object({ success: z.boolean(), amount: z.number().optional(), userId: z.string().optional(), message: z.string().optional() }) },
      handler: async (req, res) => {
        const { reference } = req.body;
        const principal = principalOf(res);
        const payment = await payments.find(reference);
        // A user may verify only their own payments; someone else's reference looks unknown.
        if (!payment || (principal.role === 'user' && payment.userId !== principal.id)) {
          throw new AppError('NOT_FOUND', 'Payment reference not found');
        }
        const outcome = await payments.settle(reference, payment);
        sendVerifyAnswer(res, outcome);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/mint-tokens',
      access: 'admin',
      summary: 'Mint tokens to a user (admin; optional Idempotency-Key header; above MINT_APPROVAL_THRESHOLD, 202 with an approvalId: a second admin approves)',
      request: { body: mintBody },
      after: [idempotent('payments.mint')],
      response: { status: 200, schema: mintAnswer },
      handler: async (req, res) => {
        const { userId, amount } = req.body;
        sendMintRequest(res, await ledger.mintToUser(actorOf(req, res), userId, amount, idempotencyOf(res)), deps.tokenCode);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/callback',
      access: 'public',
      summary: "The provider's browser redirect: verifies, mints and answers an HTML page",
      // Public and it calls the provider: limited per IP like the credential routes.
      rateLimit: deps.rateLimits.callback(),
      response: { status: 200, contentType: 'text/html' },
      // A browser lands here: every failure is a page too, never the group's JSON.
      errors: { page: callbackFailurePage },
      handler: async (req, res) => {
        res.setHeader('Cache-Control', 'no-store');
        const reference = callbackReference(req.query);
        if (!reference) throw new AppError('VALIDATION', 'The payment reference is missing or malformed.').because(NO_REFERENCE);
        const outcome = await payments.settle(reference);
        const page = await callbackPage(outcome, reference, deps);
        res.status(page.status).type('html').send(page.html);
      },
    }),
  ];
}

function sendVerifyAnswer(res: express.Response, outcome: SettleOutcome): void {
  switch (outcome.kind) {
    case 'minted':
    case 'verified':
      res.json({ success: true, amount: nairaNumber(outcome.amountKobo), userId: outcome.customerId });
      return;
    case 'already_processed':
      res.json({ success: false, message: 'Payment already processed' });
      return;
    case 'mint_failed':
      res.status(409).json({ success: false, message: `Payment received, but its tokens can not be minted: ${outcome.payment.failureReason ?? 'refused by the ledger'}` });
      return;
    case 'not_paid':
      res.status(400).json({ success: false, message: `Payment not successful (status: ${outcome.status})` });
      return;
    case 'mismatch':
      res.status(400).json({ success: false, message: 'Payment amount or currency does not match the recorded payment' });
      return;
    case 'unknown':
      res.status(404).json({ success: false, message: 'Payment reference not found' });
  }
}

/**
 * POST /api/payments/webhook (CONTRACT 8): Paystack's signed events. Mounted before the JSON
 * parser because the signature covers the exact raw bytes. Every correctly signed event is
 * answered 200 (an event the service cannot use would otherwise be delivered again for 72 hours);
 * one about a payment of this service is stored first (a storage failure answers 5xx, so the
 * provider delivers it again), and the inbox worker settles it, with retries, until its outcome is final.
 */
export function paymentsWebhookRouter(deps: { inbox: WebhookInboxService; secretKey: string; rateLimits: RateLimits }): Router {
  const router = Router();
  router.post('/', deps.rateLimits.webhook(), express.raw({ type: () => true, limit: '100kb' }), async (req, res) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!isValidPaystackSignature(raw, req.get('x-paystack-signature'), deps.secretKey)) {
      res.status(401).json({ success: false, message: 'Invalid signature' });
      return;
    }
    const event = readProviderEvent(raw);
    if (event) await deps.inbox.receive(event);
    res.status(200).json({ success: true, message: 'Received' });
  });
  return router;
}
