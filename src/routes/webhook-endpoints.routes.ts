import { z } from 'zod';
import type { DeliveryRow, EndpointRow } from '../db/repositories/webhook.repository';
import { eventTypeSchema, type EventType } from '../domain/events';
import { uuidParam } from '../http/schemas';
import type { WebhookEndpointService } from '../services/webhook-endpoint.service';
import { actorOf } from './admin-actor';
import { defineRoute } from './define-route';
import { messageRoute, pagedRoute } from './route-kinds';
import type { RouteDef } from './route-table';

export const endpointBody = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2048),
    eventTypes: z.array(eventTypeSchema).min(1).max(20).optional().describe('The types it hears; omitted: every type'),
  })
  .strict();
export const replayBody = z.object({ since: z.iso.datetime({ offset: true }).describe('ISO 8601: events created since this time are sent again') }).strict();
const idParams = z.object({ id: uuidParam }).strict();

export const endpointItem = z.object({
  endpointId: z.uuid(),
  url: z.string(),
  eventTypes: z.array(eventTypeSchema).nullable().describe('null: every type'),
  createdAt: z.string(),
  failingSince: z.string().nullable().describe('Set when a delivery spent every retry; cleared by the next success'),
});
const withSecret = endpointItem.extend({ secret: z.string().describe('The `whsec_` signing secret: shown this once') });

export const deliveryItem = z.object({
  deliveryId: z.uuid(),
  eventId: z.uuid().describe('The `webhook-id` of its requests'),
  eventType: eventTypeSchema.nullable().describe('null once the event is past its retention'),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempts: z.number().int(),
  lastStatus: z.number().int().nullable().describe("The endpoint's last HTTP status; null: no answer"),
  lastError: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
});

function toEndpoint(row: EndpointRow): z.output<typeof endpointItem> {
  return {
    endpointId: row.id,
    url: row.url,
    eventTypes: (row.eventTypes as EventType[] | null) ?? null,
    createdAt: row.createdAt.toISOString(),
    failingSince: row.failingSince?.toISOString() ?? null,
  };
}

function toDelivery(row: DeliveryRow & { eventType: EventType | null }): z.output<typeof deliveryItem> {
  return {
    deliveryId: row.id,
    eventId: row.eventId,
    eventType: row.eventType,
    status: row.status,
    attempts: row.attempts,
    lastStatus: row.lastStatus,
    lastError: row.lastError,
    nextAttemptAt: row.nextAttemptAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** Webhook endpoints, in the admin group (CONTRACT.md section 13). */
export function webhookEndpointRoutes({ endpoints }: { endpoints: WebhookEndpointService }): RouteDef[] {
  return [
    defineRoute({
      method: 'post',
      path: '/webhook-endpoints',
      access: 'admin',
      summary: 'Register an endpoint that hears events (signed per Standard Webhooks); the secret is shown once',
      request: { body: endpointBody },
      response: { status: 201, schema: withSecret },
      handler: async (req, res) => {
        const { endpoint, secret } = await endpoints.register(actorOf(req, res), req.body.url, req.body.eventTypes ?? null);
        res.status(201).json({ ...toEndpoint(endpoint), secret });
      },
    }),
    defineRoute({
      method: 'get',
      path: '/webhook-endpoints',
      access: 'admin',
      summary: 'The registered endpoints (never their secrets)',
      response: { status: 200, schema: z.array(endpointItem) },
      handler: async (_req, res) => {
        res.json((await endpoints.list()).map(toEndpoint));
      },
    }),
    messageRoute({
      method: 'delete',
      path: '/webhook-endpoints/:id',
      access: 'admin',
      summary: 'Delete an endpoint: it receives nothing more',
      request: { params: idParams },
      message: 'Webhook endpoint deleted',
      act: async (req, res) => {
        await endpoints.remove(actorOf(req, res), req.params.id);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/webhook-endpoints/:id/rotate-secret',
      access: 'admin',
      summary: 'A new signing secret, shown once; the old one signs beside it for 24 hours',
      request: { params: idParams },
      response: { status: 200, schema: withSecret },
      handler: async (req, res) => {
        const { endpoint, secret } = await endpoints.rotate(actorOf(req, res), req.params.id);
        res.json({ ...toEndpoint(endpoint), secret });
      },
    }),
    messageRoute({
      method: 'post',
      path: '/webhook-endpoints/:id/replay',
      access: 'admin',
      summary: 'Send again every event of its types created since `since` (same webhook-id as before)',
      request: { params: idParams, body: replayBody },
      message: 'Replay queued',
      fields: { deliveries: z.number().int().describe('Deliveries queued') },
      act: async (req, res) => ({ deliveries: await endpoints.replay(actorOf(req, res), req.params.id, new Date(req.body.since)) }),
    }),
    pagedRoute({
      path: '/webhook-endpoints/:id/deliveries',
      access: 'admin',
      summary: "An endpoint's deliveries, newest first: attempts, last status, next try",
      params: idParams,
      item: deliveryItem,
      fetch: async ({ limit, offset }, req) => {
        const { rows, total } = await endpoints.deliveries(req.params.id, limit, offset);
        return { items: rows, total };
      },
      toItem: toDelivery,
    }),
  ];
}
