import cors from 'cors';
import express from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { SECURITY_HEADERS } from '../../src/http/security-headers';
import { adminToken, bearer, createUser } from '../helpers/factories';
import { closeTestDatabase, startTestApp, type TestApp } from '../helpers/test-app';

// The app's one request layer (src/middleware/request-layer.ts) replaced helmet() and cors() as
// layers of their own: what a client sees must be what those packages gave it.

/** The CORS headers of an answer, and whether it was a 204 preflight. */
function corsSeen(res: request.Response) {
  const h = res.headers;
  return {
    preflightAnswered: res.status === 204,
    allowOrigin: h['access-control-allow-origin'],
    allowMethods: h['access-control-allow-methods'],
    allowHeaders: h['access-control-allow-headers'],
    allowCredentials: h['access-control-allow-credentials'],
    expose: h['access-control-expose-headers'],
    vary: h.vary,
    contentLength: res.status === 204 ? h['content-length'] : undefined,
  };
}

const ORIGINS = [undefined, 'https://wallet.example', 'https://other.example', 'https://evil.example', 'null'];
const REQUESTS: { method: 'get' | 'post' | 'options'; headers: Record<string, string> }[] = [
  { method: 'get', headers: {} },
  { method: 'post', headers: {} },
  { method: 'options', headers: { 'Access-Control-Request-Method': 'POST' } },
  { method: 'options', headers: { 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'authorization,content-type,idempotency-key' } },
];

let app: TestApp;
afterEach(async () => {
  await app.close();
});
afterAll(closeTestDatabase);

describe('the request layer', () => {
  it.each([[''], ['https://wallet.example'], ['https://wallet.example,https://other.example']])(
    'CORS_ORIGINS=%j: every preflight and request gets the headers the cors package gives',
    async (configured) => {
      app = await startTestApp(configured ? { CORS_ORIGINS: configured } : {});
      const origins = configured.split(',').filter(Boolean);
      const reference = express();
      reference.use(cors({ origin: origins.length > 0 ? origins : false, exposedHeaders: ['X-Request-Id', 'X-Total-Count'] }));
      reference.use((_req, res) => {
        res.status(418).end();
      });
      for (const origin of ORIGINS) {
        for (const { method, headers } of REQUESTS) {
          const send = (http: ReturnType<typeof request>) => {
            const req = http[method]('/api/users/login').set(headers);
            return origin === undefined ? req : req.set('Origin', origin);
          };
          const expected = corsSeen(await send(request(reference)));
          const seen = corsSeen(await send(app.http));
          expect([origin, method, headers, seen]).toEqual([origin, method, headers, expected]);
        }
      }
    },
  );

  it("sends exactly helmet()'s default headers, in its order", async () => {
    const set: [string, string][] = [];
    const res = { setHeader: (name: string, value: string) => set.push([name, value]), removeHeader: () => undefined };
    helmet()({} as never, res as never, () => undefined);
    expect(SECURITY_HEADERS).toEqual(set);
    app = await startTestApp();
    const answer = await app.http.get('/healthz').expect(200);
    for (const [name, value] of SECURITY_HEADERS) expect([name, answer.headers[name.toLowerCase()]]).toEqual([name, value]);
  });

  it('computes no ETag: a list page and /healthz come whole, even to a conditional request', async () => {
    app = await startTestApp();
    const user = await createUser(app);
    const admin = await adminToken(app);
    for (const [path, token] of [
      ['/healthz', undefined],
      [`/api/ledger/transactions/${user.userId}`, user.token],
      ['/api/admin/transactions', admin],
    ] as const) {
      const first = await app.http.get(path).set(token ? bearer(token) : {});
      expect([path, first.status, first.headers.etag]).toEqual([path, 200, undefined]);
      // The tag Express would have given /healthz's body: nothing to match it against now.
      const again = await app.http.get(path).set(token ? bearer(token) : {}).set('If-None-Match', 'W/"f-VaSQ4oDUiZblZNAEkkN+sX+q3Sg"');
      expect([path, again.status, again.text]).toEqual([path, 200, first.text]);
    }
  });
});
