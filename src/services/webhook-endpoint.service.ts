import crypto from 'node:crypto';
import type { Database } from '../db/client';
import { appendAdminLog } from '../db/repositories/admin-log.repository';
import type { DeliveryRow, EndpointRow, WebhookRepository } from '../db/repositories/webhook.repository';
import type { AdminActor } from '../domain/admin-log';
import type { EventType } from '../domain/events';
import { AppError } from '../errors/app-error';
import type { DeliveryQueue } from '../events/delivery-queue';
import { refusedUrl, resolveAllowed, type AddressPolicy } from '../security/endpoint-address';
import type { WebhookSecrets } from '../security/webhook-secrets';

/** How long a rotated-out secret keeps signing beside the new one. */
const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

export interface WebhookEndpointDeps {
  db: Database;
  webhooks: WebhookRepository;
  queue: DeliveryQueue;
  secrets: WebhookSecrets;
  policy: AddressPolicy;
}

/**
 * Admins' webhook endpoints (CONTRACT.md section 13): register, list, delete, rotate the secret,
 * replay, read deliveries. Every change commits with its admin-log row; a secret is answered once
 * (on registration and on rotation) and never logged.
 */
export class WebhookEndpointService {
  constructor(private readonly deps: WebhookEndpointDeps) {}

  async register(actor: AdminActor, url: string, eventTypes: EventType[] | null): Promise<{ endpoint: EndpointRow; secret: string }> {
    await this.checkTarget(url);
    // The queue's tables exist before any event can be enqueued for this endpoint.
    await this.deps.queue.prepare();
    const id = crypto.randomUUID();
    const secret = this.deps.secrets.generate();
    const endpoint = await this.deps.db.transaction(async (tx) => {
      const created = await this.deps.webhooks.createEndpoint(tx, { id, url, eventTypes, createdBy: actor.adminId, ...this.deps.secrets.seal(secret, id) });
      // The URL without its query or fragment: receivers often carry a token there, and the log holds no secret.
      await appendAdminLog(tx, { ...actor, action: 'webhook.endpoint_created', target: id, details: { url: withoutQuery(url), eventTypes } });
      return created;
    });
    return { endpoint, secret };
  }

  list(): Promise<EndpointRow[]> {
    return this.deps.webhooks.liveEndpoints();
  }

  async remove(actor: AdminActor, id: string): Promise<void> {
    const removed = await this.deps.db.transaction(async (tx) => {
      if (!(await this.deps.webhooks.delete(tx, id))) return false;
      await appendAdminLog(tx, { ...actor, action: 'webhook.endpoint_deleted', target: id });
      return true;
    });
    if (!removed) throw notFound();
  }

  async rotate(actor: AdminActor, id: string): Promise<{ endpoint: EndpointRow; secret: string }> {
    const secret = this.deps.secrets.generate();
    const endpoint = await this.deps.db.transaction(async (tx) => {
      const rotated = await this.deps.webhooks.rotate(tx, id, this.deps.secrets.seal(secret, id), new Date(Date.now() + ROTATION_GRACE_MS));
      if (rotated) await appendAdminLog(tx, { ...actor, action: 'webhook.secret_rotated', target: id });
      return rotated;
    });
    if (!endpoint) throw notFound();
    return { endpoint, secret };
  }

  /** Re-sends every event of the endpoint's types created since `since`: each delivery pending again, enqueued with the log row. */
  async replay(actor: AdminActor, id: string, since: Date): Promise<number> {
    const endpoint = await this.deps.webhooks.findLive(id);
    if (!endpoint) throw notFound();
    await this.deps.queue.prepare();
    return this.deps.db.transaction(async (tx) => {
      const deliveries = await this.deps.webhooks.replay(tx, endpoint, since);
      await this.deps.queue.enqueue(tx, deliveries);
      await appendAdminLog(tx, { ...actor, action: 'webhook.replayed', target: id, details: { since: since.toISOString(), deliveries: deliveries.length } });
      return deliveries.length;
    });
  }

  async deliveries(id: string, limit: number, offset: number): Promise<{ rows: (DeliveryRow & { eventType: EventType | null })[]; total: number }> {
    if (!(await this.deps.webhooks.findLive(id))) throw notFound();
    return this.deps.webhooks.deliveriesPage(id, limit, offset);
  }

  /** The URL as a delivery would meet it: scheme and resolved addresses (checked again at every delivery). */
  private async checkTarget(url: string): Promise<void> {
    const parsed = new URL(url);
    const scheme = refusedUrl(parsed, this.deps.policy);
    if (scheme) throw invalidUrl(`url ${scheme}`);
    const resolved = await resolveAllowed(parsed.hostname, this.deps.policy);
    if ('refused' in resolved) throw invalidUrl(`url is refused: ${resolved.refused}`);
  }
}

function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}

function notFound(): AppError {
  return new AppError('NOT_FOUND', 'Webhook endpoint not found');
}

function invalidUrl(message: string): AppError {
  return new AppError('VALIDATION', 'Invalid webhook endpoint URL', [{ path: 'url', message }]);
}
