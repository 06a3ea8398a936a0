import http from 'node:http';
import https from 'node:https';

/** What rpc.Server asks of its HTTP client: a POST of a JSON body, answered with the parsed JSON (the SDK reads `data` alone). */
export interface JsonRpcHttp {
  post(url: string, body: unknown): Promise<{ data: unknown; status: number }>;
}

/** A failed exchange as both ledger adapters read it (ledger-failures.ts): its socket error's `code`, or the answer's status and body. */
export class JsonRpcHttpError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly response?: { status: number; data: unknown },
  ) {
    super(message);
    this.name = 'JsonRpcHttpError';
  }
}

/**
 * The HTTP exchange under rpc.Server: one POST per JSON-RPC call on a kept-alive connection, its
 * answer parsed as JSON (a body that is not JSON is handed on as text, for the SDK to refuse).
 *
 * Why not the client the SDK bundles (axios): per call it merged configurations, ran interceptors
 * and a redirect layer, about a tenth of the service's CPU per transfer (BENCHMARKS.md, issue 37);
 * and SDK 15's rpc.Server ignores its `timeout` option, so a provider that accepted a call and
 * never answered held the call, and the close watch behind every submission, for ever. Here every
 * call ends within `timeoutMs`.
 *
 * Unlike axios it does not read HTTP_PROXY / HTTPS_PROXY: the RPC provider is reached directly
 * (README, "The ledger API").
 *
 * Failures keep the shapes ledger-failures.ts reads: a socket error with its own `code`
 * (ECONNREFUSED: no byte left this process), a non-2xx answer with `response.status` and
 * `response.data`, no answer in time as ETIMEDOUT.
 */
export function jsonRpcHttp(timeoutMs: number): JsonRpcHttp {
  const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
  return {
    post: (url, body) =>
      new Promise((resolve, reject) => {
        const target = new URL(url);
        const transport = target.protocol === 'https:' ? https : http;
        const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
        const req = transport.request(
          target,
          {
            method: 'POST',
            agent: agents[target.protocol as keyof typeof agents],
            headers: { 'content-type': 'application/json', accept: 'application/json', 'content-length': payload.length },
            timeout: timeoutMs,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('error', reject);
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              const data = parsed(text);
              const status = res.statusCode ?? 0;
              if (status < 200 || status >= 300) {
                reject(new JsonRpcHttpError(`Request failed with status code ${status}`, 'ERR_BAD_RESPONSE', { status, data }));
                return;
              }
              resolve({ data, status });
            });
          },
        );
        // Idle for timeoutMs, before or after bytes left: the answer is not coming (the caller
        // decides what that means for a submission: unclear, never "not sent").
        req.on('timeout', () => req.destroy(new JsonRpcHttpError(`no answer within ${timeoutMs} ms`, 'ETIMEDOUT')));
        req.on('error', reject);
        req.end(payload);
      }),
  };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
