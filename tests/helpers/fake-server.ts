import http, { type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';

/** What the fake server does with one request, its body already read. */
export type Behaviour = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /**
   * What became of it so far: still `open` (no answer yet, the client still waiting), `answered`,
   * `abandoned` (the client closed the connection before an answer: it gave up), or `dropped` (the
   * fake server closed it, changing behaviour or closing). Lets a test say who gave up first
   * instead of timing them.
   */
  fate: 'open' | 'answered' | 'abandoned' | 'dropped';
}

export interface FakeServer {
  url: string;
  /** Every request received, in order. */
  requests: ReceivedRequest[];
  /**
   * Changes what the server does from the next request on. 'down' closes the port (connection
   * refused) until another behaviour opens it again on the same port. Either way, whatever the last
   * behaviour held open (a hung request, a kept-alive connection) is dropped.
   */
  behave(next: Behaviour | 'down'): Promise<void>;
  close(): Promise<void>;
}

/**
 * A stand-in for an outside HTTP service (a provider, Horizon, a merchant endpoint) on a free
 * local port, playing whatever `behaviour` a test gives it: a transparent proxy to the real
 * sandbox, an answer, silence, or a closed port.
 */
export async function startFakeServer(behaviour: Behaviour): Promise<FakeServer> {
  let current: Behaviour | 'down' = behaviour;
  const requests: ReceivedRequest[] = [];
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks), fate: 'open' };
      requests.push(received);
      res.once('finish', () => (received.fate = 'answered'));
      res.once('close', () => {
        if (received.fate === 'open') received.fate = 'abandoned';
      });
      if (current !== 'down') current(req, res, received.body);
    });
  };
  let server: Server | undefined;
  const open = (port: number) =>
    new Promise<number>((resolve, reject) => {
      const s = http.createServer(listener);
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        server = s;
        resolve((s.address() as AddressInfo).port);
      });
    });
  const shut = () =>
    new Promise<void>((resolve) => {
      const s = server;
      server = undefined;
      if (!s) return resolve();
      // Whatever is still open is dropped by us, not given up by its client.
      for (const received of requests) if (received.fate === 'open') received.fate = 'dropped';
      s.closeAllConnections();
      s.close(() => resolve());
    });
  const port = await open(0);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async behave(next) {
      await shut();
      current = next;
      if (next !== 'down') await open(port);
    },
    close: shut,
  };
}

/** Answers every request with `status` and `body`. */
export function answer(status: number, body = '', contentType = 'application/json'): Behaviour {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': contentType }).end(body);
  };
}

/** Takes the request and never answers: a server that accepts connections and then goes silent. */
export const hang: Behaviour = () => undefined;

export interface ForwardOptions {
  /** Milliseconds to hold back the answer to `req` (read each time, so a test can change it); default none. */
  holdAnswerMs?: (req: IncomingMessage) => number;
  /** Rewrites the upstream's answer body before it is passed on. */
  rewrite?: (req: IncomingMessage, answer: Buffer) => Buffer;
}

/**
 * A transparent proxy to `upstream`: method, path, body, authorization and content type are
 * forwarded at once (so the upstream acts on the request), and its answer is passed back,
 * held back or rewritten as `options` say.
 */
export function forwardTo(upstream: string, options: ForwardOptions = {}): Behaviour {
  return (req, res, body) => {
    const holdFor = options.holdAnswerMs?.(req) ?? 0;
    const headers: Record<string, string> = { 'content-type': req.headers['content-type'] ?? 'application/json', accept: req.headers.accept ?? '*/*' };
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    fetch(`${upstream}${req.url}`, { method: req.method, headers, body: body.length > 0 ? body : undefined })
      .then(async (upstreamAnswer) => {
        const raw = Buffer.from(await upstreamAnswer.arrayBuffer());
        const bytes = options.rewrite ? options.rewrite(req, raw) : raw;
        const send = () => {
          if (!res.destroyed) res.writeHead(upstreamAnswer.status, { 'content-type': upstreamAnswer.headers.get('content-type') ?? 'application/json' }).end(bytes);
        };
        // unref: an answer held past the end of a test keeps nothing alive; the dropped connection discards it.
        if (holdFor > 0) setTimeout(send, holdFor).unref();
        else send();
      })
      .catch(() => {
        if (!res.destroyed) res.writeHead(502).end();
      });
  };
}
