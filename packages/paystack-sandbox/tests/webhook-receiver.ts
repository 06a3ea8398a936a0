import http, { type IncomingHttpHeaders } from 'node:http';
import { patienceMs } from './patience';
import { closeServer, listenOnEphemeralPort } from './sandbox-harness';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The exact bytes on the wire: signatures must be checked against these, not re-serialised JSON. */
  rawBody: Buffer;
  json: { event: string; data: Record<string, unknown> & { reference: string } };
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Resolves once `count` requests have arrived; rejects, naming how many did, only after the suite's patience. */
  waitForCount(count: number): Promise<ReceivedWebhook[]>;
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
  const waiters: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const json = parsed(rawBody);
      // A delivery cut off on the wire (the sender's request deadline passed on a busy machine)
      // arrives incomplete: a merchant answers it 400 and counts nothing; the sender tries again.
      if (json === undefined) {
        res.writeHead(400).end();
        return;
      }
      received.push({ headers: req.headers, rawBody, json });
      waiters.forEach((wake) => wake());
      void Promise.resolve(respond(received.length)).then((status) => {
        res.writeHead(status).end();
      });
    });
  });
  const url = `${await listenOnEphemeralPort(server)}/paystack/webhook`;

  return {
    url,
    received,
    waitForCount: (count) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${count} webhooks, got ${received.length}`)), patienceMs());
        const check = (): void => {
          if (received.length < count) return;
          clearTimeout(timer);
          resolve(received.slice());
        };
        waiters.push(check);
        check();
      }),
    stop: () => closeServer(server),
  };
}

function parsed(rawBody: Buffer): ReceivedWebhook['json'] | undefined {
  try {
    return JSON.parse(rawBody.toString('utf8')) as ReceivedWebhook['json'];
  } catch {
    return undefined;
  }
}
