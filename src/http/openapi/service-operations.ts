import type { RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { EXAMPLE } from './examples';
import { GENERIC_MESSAGE, paymentsErrorSchema, STATUS_TEXT } from './error-bodies';

/**
 * The routes that live outside the four route tables (app.ts and the raw-body webhook mount).
 * They are few and fixed, so they are described here by hand; every route-table row is
 * described from the row itself.
 */
const status = (value: string) => z.object({ status: z.literal(value) });

const OPS_TAG = 'Operations';

export const serviceOperations: RouteConfig[] = [
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealthz',
    summary: 'Liveness: the process is up',
    tags: [OPS_TAG],
    security: [],
    'x-access': 'public',
    responses: {
      200: { description: 'The process answers', content: { 'application/json': { schema: status('ok'), example: { status: 'ok' } } } },
    },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadyz',
    summary: 'Readiness: the database and the ledger are reachable',
    tags: [OPS_TAG],
    security: [],
    'x-access': 'public',
    responses: {
      200: { description: 'Ready to serve', content: { 'application/json': { schema: status('ready'), example: { status: 'ready' } } } },
      503: {
        description: 'The database or the ledger is unreachable',
        content: { 'application/json': { schema: status('unavailable'), example: { status: 'unavailable' } } },
      },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    summary: 'Prometheus metrics (text exposition format)',
    description:
      'HTTP request durations by route pattern, ledger submissions by result code, payments by status, the distribution ' +
      'submitter queue depth and the Node.js process metrics. Public: restrict it at the proxy or network level.',
    tags: [OPS_TAG],
    security: [],
    'x-access': 'public',
    responses: {
      200: {
        description: 'Prometheus text format 0.0.4',
        content: {
          'text/plain': {
            schema: { type: 'string' },
            example: '# HELP ledger_submissions_total Ledger transaction submissions by result code\n# TYPE ledger_submissions_total counter\nledger_submissions_total{result="tx_success"} 12\n',
          },
        },
      },
    },
  },
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenapiJson',
    summary: 'This OpenAPI 3.1 document (Swagger UI at /docs)',
    tags: [OPS_TAG],
    security: [],
    'x-access': 'public',
    responses: {
      200: {
        description: 'The document',
        content: { 'application/json': { schema: { type: 'object' }, example: { openapi: '3.1.0', info: { title: 'Wallet Service API' } } } },
      },
    },
  },
  {
    method: 'post',
    path: '/api/payments/webhook',
    operationId: 'postPaymentsWebhook',
    summary: "Paystack's signed event notification (charge.success completes the payment)",
    description:
      'Called by the payment provider, not by clients. `x-paystack-signature` is the HMAC-SHA512 of the exact raw body ' +
      'with the provider secret key; anything else is 401. The answer is immediate; the payment is verified and minted ' +
      'through the same path as verify-payment, so a buyer who closes the browser before the redirect still gets the tokens.',
    tags: ['Payments'],
    security: [],
    'x-access': 'public',
    request: {
      headers: z.object({
        'x-paystack-signature': z.string().meta({ description: 'HMAC-SHA512 (hex) of the raw request body with the Paystack secret key' }),
      }),
      body: {
        required: true,
        content: {
          'application/json': {
            schema: z.object({ event: z.string(), data: z.looseObject({ reference: z.string().min(1).max(100) }) }),
            example: { event: 'charge.success', data: { reference: EXAMPLE.reference, status: 'success', amount: 500000, currency: 'NGN' } },
          },
        },
      },
    },
    responses: {
      200: {
        description: 'Received',
        content: {
          'application/json': {
            schema: z.object({ success: z.literal(true), message: z.string() }),
            example: { success: true, message: 'Received' },
          },
        },
      },
      400: {
        description: 'The body is not a readable event',
        content: { 'application/json': { schema: paymentsErrorSchema, example: { success: false, message: 'Unreadable event' } } },
      },
      401: {
        description: 'Missing or wrong signature',
        content: { 'application/json': { schema: paymentsErrorSchema, example: { success: false, message: 'Invalid signature' } } },
      },
      // The raw body parser's limit and the webhook's own rate limit (WEBHOOK_RATE_LIMIT), answered by the error handler.
      413: {
        description: STATUS_TEXT[413]!,
        content: { 'application/json': { schema: paymentsErrorSchema, example: { success: false, message: GENERIC_MESSAGE[413]! } } },
      },
      429: {
        description: STATUS_TEXT[429]!,
        content: { 'application/json': { schema: paymentsErrorSchema, example: { success: false, message: GENERIC_MESSAGE[429]! } } },
      },
    },
  },
];
