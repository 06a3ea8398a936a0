import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveAllowed, refusedUrl, type AddressPolicy } from '../security/endpoint-address';

/** What an endpoint answered: its status, or why there was no answer (a refused address, a timeout, a reset). */
export type SendOutcome = { status: number } | { error: string };

/** What an endpoint's answer may say: read and dropped past this (a delivery needs only the status). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Posts one signed webhook body. The host is resolved here and every address checked
 * (endpoint-address.ts); the connection goes to the address checked, never to a second lookup's.
 * No redirect is followed (a 3xx is a failed attempt), and an endpoint that has not answered
 * within `timeoutMs` is a failed attempt: nothing waits on it longer.
 */
export class WebhookSender {
  constructor(private readonly options: AddressPolicy & { timeoutMs: number }) {}

  async post(target: string, headers: Record<string, string>, body: string): Promise<SendOutcome> {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return { error: 'the URL does not parse' };
    }
    const refusedScheme = refusedUrl(url, this.options);
    if (refusedScheme) return { error: `the URL ${refusedScheme}` };
    const resolved = await resolveAllowed(url.hostname, this.options);
    if ('refused' in resolved) return { error: `not sent: ${resolved.refused}` };
    const lookup: LookupFunction = (_host, options, callback) => {
      if ((options as { all?: boolean }).all) callback(null, [{ address: resolved.address, family: resolved.family }]);
      else callback(null, resolved.address, resolved.family);
    };
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<SendOutcome>((resolve) => {
      const request = client.request(
        url,
        {
          method: 'POST',
          lookup,
          agent: false,
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body).toString(), 'user-agent': 'wallet-service-webhooks/1' },
        },
        (response) => {
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > MAX_ANSWER_BYTES) response.destroy();
          });
          response.on('close', () => resolve({ status: response.statusCode ?? 0 }));
          response.on('error', () => resolve({ status: response.statusCode ?? 0 }));
        },
      );
      const deadline = setTimeout(() => {
        request.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`));
      }, this.options.timeoutMs);
      request.on('error', (err) => resolve({ error: err.message }));
      request.on('close', () => clearTimeout(deadline));
      request.end(body);
    });
  }
}
