import type { IncomingHttpHeaders } from 'node:http';
import { eventually } from '../../helpers/eventually';
import { startFakeServer } from '../../helpers/fake-server';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The exact bytes on the wire: signatures must be checked against these, not re-serialised JSON. */
  rawBody: Buffer;
  json: { event: string; data: Record<string, unknown> & { reference: string } };
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves once `count` requests have arrived, or rejects after `timeoutMs`. */
  waitForCount(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  stop(): Promise<void>;
}

/**
 * A merchant endpoint that records every request. `respond` picks the status for the n-th
 * request (1-based), so a test can make it fail first and succeed later.
 */
export async function startWebhookReceiver(
  respond: (requestNumber: number) => number | Promise<number> = () => 200,
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const server = await startFakeServer((req, res, rawBody) => {
    received.push({ headers: req.headers, rawBody, json: JSON.parse(rawBody.toString('utf8')) as ReceivedWebhook['json'] });
    void Promise.resolve(respond(received.length)).then((status) => {
      res.writeHead(status).end();
    });
  });
  return {
    url: `${server.url}/paystack/webhook`,
    received,
    waitForCount: (count, timeoutMs = 8_000) =>
      eventually(async () => (received.length >= count ? received.slice() : undefined), `${count} webhooks`, timeoutMs, 10),
    stop: () => server.close(),
  };
}
