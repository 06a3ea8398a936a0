import http from 'node:http';
import type { RequestHandler } from 'express';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * Serves the sandbox host's pages and APIs on the service's own port, under the paths they always
 * had (/sandbox/...): the checkout page the provider's authorization_url names opens in the user's
 * browser at PUBLIC_BASE_URL. Bytes are streamed both ways, nothing is parsed here, and the Host
 * header is kept, so the sandbox builds its URLs from the address the caller used.
 */
export function sandboxProxy(hostUrl: () => string): RequestHandler {
  return (req, res) => {
    const target = new URL(hostUrl());
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.originalUrl, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders as unknown as http.OutgoingHttpHeaders);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (res.headersSent) res.destroy();
      else res.status(502).json({ error: 'The embedded sandbox is not reachable' });
    });
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };
}
