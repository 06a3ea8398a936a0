import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Response } from 'supertest';
import { errorBody, errorShapeOf } from '../../src/http/error-shapes';
import { buildOpenApiDocument, fullPathOf, toOpenApiPath, type OpenApiDocument } from '../../src/http/openapi';
import { COLLECTION_FILE, ENVIRONMENT_FILE, postmanFiles } from '../../src/http/openapi/postman';
import { ROUTE_NOTES, routeKey } from '../../src/http/openapi/route-notes';
import type { RouteDef } from '../../src/routes/route-table';
import { adminToken, bearer, createUser, userFields } from '../helpers/factories';
import { startTestApp, type TestApp } from '../helpers/test-app';

// ---- a loose view of the document, and a small JSON Schema (2020-12 subset) checker ----

interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  format?: string;
}
interface MediaType {
  schema?: JsonSchema;
  example?: unknown;
  examples?: Record<string, { summary?: string; value: unknown }>;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema;
}
interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  'x-access'?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, { description?: string; headers?: Record<string, { description?: string; schema?: JsonSchema }>; content?: Record<string, MediaType> }>;
}
interface LooseDoc {
  openapi: string;
  info: { title: string; version: string; license?: { name: string; identifier?: string; url?: string } };
  servers?: { url: string; description?: string }[];
  tags?: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, JsonSchema>; securitySchemes?: Record<string, unknown> };
}

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      throw new Error(`unknown JSON Schema type ${type}`);
  }
}

/** The violations of `value` against `schema` (empty when it conforms). */
function violations(doc: LooseDoc, schema: JsonSchema, value: unknown, at = '$'): string[] {
  if (schema.$ref) {
    const name = /^#\/components\/schemas\/(.+)$/.exec(schema.$ref)?.[1];
    const target = name ? doc.components.schemas?.[name] : undefined;
    if (!target) return [`${at}: unresolvable $ref ${schema.$ref}`];
    return violations(doc, target, value, at);
  }
  const out: string[] = [];
  if (schema.anyOf && !schema.anyOf.some((s) => violations(doc, s, value, at).length === 0)) out.push(`${at}: matches none of anyOf`);
  if (schema.oneOf && schema.oneOf.filter((s) => violations(doc, s, value, at).length === 0).length !== 1) out.push(`${at}: must match one of oneOf`);
  for (const s of schema.allOf ?? []) out.push(...violations(doc, s, value, at));
  if ('const' in schema && !isDeepStrictEqual(value, schema.const)) out.push(`${at}: must be ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.some((e) => isDeepStrictEqual(e, value))) out.push(`${at}: must be one of ${JSON.stringify(schema.enum)}`);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => hasType(value, t))) return [...out, `${at}: expected ${types.join(' | ')}, got ${JSON.stringify(value)}`];
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) out.push(`${at}: shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) out.push(`${at}: longer than ${schema.maxLength}`);
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) out.push(`${at}: does not match ${schema.pattern}`);
    if (schema.format === 'uuid' && !UUID.test(value)) out.push(`${at}: not a uuid`);
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) out.push(`${at}: below ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) out.push(`${at}: above ${schema.maximum}`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((v, i) => out.push(...violations(doc, schema.items!, v, `${at}[${i}]`)));
  if (isObject(value)) {
    for (const key of schema.required ?? []) if (!(key in value)) out.push(`${at}.${key}: required`);
    for (const [key, v] of Object.entries(value)) {
      const property = schema.properties?.[key];
      if (property) out.push(...violations(doc, property, v, `${at}.${key}`));
      else if (schema.additionalProperties === false) out.push(`${at}.${key}: not allowed`);
      else if (isObject(schema.additionalProperties)) out.push(...violations(doc, schema.additionalProperties, v, `${at}.${key}`));
    }
  }
  return out;
}

function examplesOf(media: MediaType): unknown[] {
  return [...(media.example !== undefined ? [media.example] : []), ...Object.values(media.examples ?? {}).map((e) => e.value)];
}

function* operations(doc: LooseDoc): Generator<{ method: string; path: string; op: Operation }> {
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) if (item[method]) yield { method, path: p, op: item[method]! };
  }
}

/** Every $ref anywhere in a value. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [v] : refsIn(v)));
}

/** The top of a documented schema: its type, and an object's property names. */
function topOfDocumented(schema: JsonSchema | undefined): { type: unknown; properties?: string[] } {
  return schema?.type === 'object' ? { type: 'object', properties: Object.keys(schema.properties ?? {}).sort() } : { type: schema?.type };
}

/** The top of a route table's zod schema, as the document should show it. */
function topOfZod(schema: unknown): { type: unknown; properties?: string[] } {
  const def = (schema as { def: { type: string; shape?: Record<string, unknown> } }).def;
  return def.type === 'object' ? { type: 'object', properties: Object.keys(def.shape ?? {}).sort() } : { type: def.type };
}

const SERVICE_OPERATIONS = ['GET /healthz', 'GET /readyz', 'GET /metrics', 'GET /openapi.json', 'POST /api/payments/webhook'];
const ERROR_COMPONENT = { error: 'ErrorBody', message: 'AdminErrorBody', payments: 'PaymentsErrorBody' } as const;

// ---- the app under test ----

/** The app's PUBLIC_BASE_URL, as a deployment sets it (the default, http://localhost:PORT, is a development address). */
const PUBLIC_BASE_URL = 'https://wallet.test';

let app: TestApp;
let document: OpenApiDocument;
let doc: LooseDoc;

beforeAll(async () => {
  app = await startTestApp({ PUBLIC_BASE_URL });
  document = buildOpenApiDocument(app.container.routeGroups, { serverUrl: app.container.config.publicBaseUrl });
  doc = document as unknown as LooseDoc;
});
afterAll(async () => {
  await app.close();
});

function tableRoutes(): { base: string; route: RouteDef; fullPath: string; op: Operation | undefined }[] {
  return Object.entries(app.container.routeGroups).flatMap(([base, routes]) =>
    routes.map((route) => {
      const fullPath = fullPathOf(base, route);
      return { base, route, fullPath, op: doc.paths[toOpenApiPath(fullPath)]?.[route.method] };
    }),
  );
}

/** Checks a real answer against what the document promises for its status and content type. */
function expectDocumented(method: string, fullPath: string, res: Response): void {
  const op = doc.paths[toOpenApiPath(fullPath)]?.[method];
  const response = op?.responses[String(res.status)];
  expect({ status: res.status, documented: response !== undefined }).toEqual({ status: res.status, documented: true });
  const type = String(res.headers['content-type'] ?? '').split(';')[0]!;
  const media = response?.content?.[type];
  expect({ type, documented: media !== undefined }).toEqual({ type, documented: true });
  expect(violations(doc, media!.schema!, res.body)).toEqual([]);
}

describe('the OpenAPI document', () => {
  it('documents every route of every route table: summary, group tag, access, request and success answer', () => {
    const rows = tableRoutes();
    expect(rows.length).toBeGreaterThanOrEqual(22);
    for (const { base, route, fullPath, op } of rows) {
      const where = `${route.method.toUpperCase()} ${fullPath}`;
      expect({ where, documented: op !== undefined }).toEqual({ where, documented: true });
      expect(op!.summary).toBe(route.summary);
      expect(op!.tags).toEqual([base.charAt(5).toUpperCase() + base.slice(6)]);
      expect(op!['x-access']).toBe(route.access);
      expect(op!.security).toEqual(route.access === 'public' ? [] : [{ bearerAuth: [] }]);
      const success = op!.responses[String(route.response?.status ?? 200)];
      expect({ where, success: success?.description }).toEqual({ where, success: route.summary });
      if (route.response?.schema) expect({ where, schema: topOfDocumented(success!.content?.['application/json']?.schema) }).toEqual({ where, schema: topOfZod(route.response.schema) });
      else if (route.response?.contentType) expect(success!.content?.[route.response.contentType]?.schema).toEqual({ type: 'string' });
      expect(op!.requestBody !== undefined).toBe(route.request?.body !== undefined);
      for (const name of [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1])) {
        expect(op!.parameters).toContainEqual(expect.objectContaining({ name, in: 'path', required: true }));
      }
    }
  });

  it('documents the routes outside the tables (health, readiness, metrics, the document, the webhook) and nothing else', () => {
    const tables = new Set(tableRoutes().map(({ route, fullPath }) => `${route.method.toUpperCase()} ${toOpenApiPath(fullPath)}`));
    const others = [...operations(doc)].map(({ method, path: p }) => `${method.toUpperCase()} ${p}`).filter((k) => !tables.has(k));
    expect(others.sort()).toEqual([...SERVICE_OPERATIONS].sort());
    const webhook = doc.paths['/api/payments/webhook']!.post!;
    expect(webhook.parameters).toContainEqual(expect.objectContaining({ name: 'x-paystack-signature', in: 'header', required: true }));
    expect(Object.keys(webhook.responses).sort()).toEqual(['200', '400', '401', '413', '429']);
  });

  it('has request and success examples for every route, and notes only for routes that exist', () => {
    const rows = tableRoutes();
    for (const { route, fullPath } of rows) {
      const notes = ROUTE_NOTES[routeKey(route.method, fullPath)];
      const where = `${route.method.toUpperCase()} ${fullPath}`;
      if (route.request?.body) expect({ where, request: notes?.request !== undefined }).toEqual({ where, request: true });
      if (route.response?.schema || route.response?.contentType) {
        expect({ where, response: notes?.response !== undefined || notes?.responses !== undefined }).toEqual({ where, response: true });
      }
    }
    const real = new Set(rows.map(({ route, fullPath }) => routeKey(route.method, fullPath)));
    expect(Object.keys(ROUTE_NOTES).filter((k) => !real.has(k))).toEqual([]);
  });

  it('is a structurally valid OpenAPI 3.1 document: unique operationIds, declared path parameters, resolvable references', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(typeof doc.info.title).toBe('string');
    expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/);
    const tags = new Set((doc.tags ?? []).map((t) => t.name));
    const schemes = new Set(Object.keys(doc.components.securitySchemes ?? {}));
    const ids: string[] = [];
    for (const { method, path: p, op } of operations(doc)) {
      const where = `${method.toUpperCase()} ${p}`;
      expect(p.startsWith('/')).toBe(true);
      expect(op.operationId).toMatch(/^[A-Za-z][A-Za-z0-9_]*$/);
      ids.push(op.operationId!);
      for (const tag of op.tags ?? []) expect({ where, tag, declared: tags.has(tag) }).toEqual({ where, tag, declared: true });
      for (const requirement of op.security ?? []) for (const name of Object.keys(requirement)) expect(schemes.has(name)).toBe(true);
      const templated = [...p.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declaredPath = (op.parameters ?? []).filter((x) => x.in === 'path');
      expect({ where, params: declaredPath.map((x) => x.name).sort() }).toEqual({ where, params: templated });
      for (const parameter of op.parameters ?? []) {
        expect(['path', 'query', 'header', 'cookie']).toContain(parameter.in);
        expect({ where, parameter: parameter.name, type: parameter.schema?.type }).toEqual({ where, parameter: parameter.name, type: expect.stringMatching(/^(string|integer|number|boolean)$/) });
        if (parameter.in === 'path') expect(parameter.required).toBe(true);
      }
      const keys = (op.parameters ?? []).map((x) => `${x.in}:${x.name}`);
      expect(new Set(keys).size).toBe(keys.length);
      if (op.requestBody) expect(Object.keys(op.requestBody.content).length).toBeGreaterThan(0);
      expect(Object.keys(op.responses).length).toBeGreaterThan(0);
      for (const [status, response] of Object.entries(op.responses)) {
        expect(status).toMatch(/^([1-5]\d\d|default)$/);
        expect(typeof response.description).toBe('string');
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    for (const ref of refsIn(doc)) {
      const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
      expect({ ref, resolves: name !== undefined && doc.components.schemas?.[name] !== undefined }).toEqual({ ref, resolves: true });
    }
  });

  it("documents each group's own error body for 400/401/403/404/409/413/429/503, and the transfer's plain-text 400", () => {
    for (const { base, route, fullPath, op } of tableRoutes()) {
      const where = `${route.method.toUpperCase()} ${fullPath}`;
      const shape = errorShapeOf(base);
      const statuses = Object.keys(op!.responses).map(Number);
      if (route.access !== 'public') expect({ where, has401: statuses.includes(401) }).toEqual({ where, has401: true });
      if (route.access === 'user' || route.access === 'admin') expect({ where, has403: statuses.includes(403) }).toEqual({ where, has403: true });
      if (route.request) expect({ where, has400: statuses.includes(400) }).toEqual({ where, has400: true });
      if (route.request?.body) expect({ where, has413: statuses.includes(413) }).toEqual({ where, has413: true });
      if (route.rateLimit) expect({ where, has429: statuses.includes(429) }).toEqual({ where, has429: true });
      for (const status of statuses.filter((s) => s >= 400)) {
        const content = op!.responses[String(status)]!.content!;
        if (fullPath === '/api/payments/callback') {
          expect(Object.keys(content)).toEqual(['text/html']);
          continue;
        }
        expect({ where, status, schema: content['application/json']?.schema }).toEqual({
          where,
          status,
          schema: { $ref: `#/components/schemas/${ERROR_COMPONENT[shape]}` },
        });
      }
    }
    // The schemas accept exactly what the error handler writes for each group.
    for (const shape of ['error', 'message', 'payments'] as const) {
      const schema = { $ref: `#/components/schemas/${ERROR_COMPONENT[shape]}` };
      expect(violations(doc, schema, errorBody(shape, 'Invalid request', [{ path: 'body.email', message: 'bad' }]))).toEqual([]);
      expect(violations(doc, schema, errorBody(shape, 'Not found'))).toEqual([]);
    }
    const rateLimited = ['/api/users/signup', '/api/users/login', '/api/users/send-reset-password-email', '/api/users/reset-password', '/api/admin/login'];
    for (const p of rateLimited) expect([p, doc.paths[p]!.post!.responses['429']?.description]).toEqual([p, 'Rate limited (per IP, 15 minutes)']);
    // The callback's 429 is a page, in the words the page uses.
    const callback429 = doc.paths['/api/payments/callback']!.get!.responses['429']!.content!['text/html']!.example;
    expect(callback429).toContain('Too many requests. Wait a few minutes, then reload this page.');
    for (const p of ['/api/ledger/transfer', '/api/ledger/create-asset', '/api/payments/verify-payment']) {
      const unavailable = doc.paths[p]!.post!.responses['503'];
      expect([p, unavailable?.description, unavailable?.headers?.['Retry-After']?.schema]).toEqual([p, 'An outside system is unreachable; retry after the Retry-After seconds', { type: 'integer' }]);
    }
    const transfer400 = doc.paths['/api/ledger/transfer']!.post!.responses['400']!.content!;
    expect(Object.keys(transfer400).sort()).toEqual(['application/json', 'text/plain']);
    expect(transfer400['text/plain']!.example).toBe('Receiver account does not exist on the ledger');
  });

  it("names the service's public base URL as its server, and the package's licence", () => {
    expect(doc.servers).toEqual([{ url: PUBLIC_BASE_URL, description: 'This deployment (PUBLIC_BASE_URL)' }]);
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('UNLICENSED');
    expect(doc.info.license).toEqual({ name: 'Proprietary (UNLICENSED)', identifier: 'LicenseRef-Proprietary' });
  });

  it('documents amounts by their input type: a JSON number or a decimal string', () => {
    const amount = doc.paths['/api/ledger/transfer']!.post!.requestBody!.content['application/json']!.schema!.properties!.amount!;
    expect(amount.anyOf?.map((s) => s.type).sort()).toEqual(['number', 'string']);
    const naira = doc.paths['/api/payments/create-payment-intent']!.post!.requestBody!.content['application/json']!.schema!.properties!.amount!;
    expect(naira.anyOf?.map((s) => s.type).sort()).toEqual(['number', 'string']);
  });

  it('has examples that conform to their documented schemas and to the route-table zod schemas', () => {
    let checked = 0;
    for (const { method, path: p, op } of operations(doc)) {
      const media = [
        ...Object.values(op.requestBody?.content ?? {}).map((m) => ['request', m] as const),
        ...Object.entries(op.responses).flatMap(([status, r]) => Object.values(r.content ?? {}).map((m) => [status, m] as const)),
      ];
      for (const [where, m] of media) {
        for (const example of examplesOf(m)) {
          checked += 1;
          expect({ at: `${method} ${p} ${where}`, violations: violations(doc, m.schema!, example) }).toEqual({ at: `${method} ${p} ${where}`, violations: [] });
        }
      }
    }
    expect(checked).toBeGreaterThan(80);
    for (const { route, fullPath } of tableRoutes()) {
      const notes = ROUTE_NOTES[routeKey(route.method, fullPath)]!;
      if (route.request?.body) expect({ fullPath, ok: route.request.body.safeParse(notes.request).success }).toEqual({ fullPath, ok: true });
      if (route.response?.schema) {
        for (const example of [notes.response, ...Object.values(notes.responses ?? {}).map((e) => e.value)].filter((e) => e !== undefined)) {
          expect({ fullPath, ok: route.response.schema.safeParse(example).success }).toEqual({ fullPath, ok: true });
        }
      }
    }
  });
});

describe('GET /openapi.json and GET /docs', () => {
  it('serves the generated document', async () => {
    const res = await app.http.get('/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(document)));
  });

  it('serves Swagger UI from local files, its initializer a script file the CSP allows', async () => {
    const page = await app.http.get('/docs').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('<script src="/docs/swagger-ui-bundle.js"></script>');
    expect(page.text).toContain('<script src="/docs/swagger-initializer.js"></script>');
    expect(page.text).not.toContain('<script>');
    expect(page.text).not.toMatch(/https?:\/\//);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toMatch(/script-src 'self'(;|$)/);

    const init = await app.http.get('/docs/swagger-initializer.js').expect(200);
    expect(init.headers['content-type']).toMatch(/javascript/);
    expect(init.text).toContain("url: '/openapi.json'");
    expect(init.text).toContain('validatorUrl: null');
    const bundle = await app.http.get('/docs/swagger-ui-bundle.js').expect(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(bundle.text.length).toBeGreaterThan(500_000);
    await app.http.get('/docs/swagger-ui.css').expect(200).expect('Content-Type', /text\/css/);
    // swagger-ui-dist's own demo page (petstore) is not served.
    await app.http.get('/docs/index.html').expect(404);
  });
});

describe("Redocly's recommended lint", () => {
  /**
   * The operations that answer no 4xx at all: they read no input and need no token, so there is
   * nothing to refuse. Redocly's operation-4xx-response (a warning in `recommended`) asks every
   * operation for one; documenting one here would invent it. These four, and only these, are
   * exempted, by Redocly's own ignore file: the run counts them as ignored, and a stale entry
   * (an operation that has since gained a 4xx) changes that count.
   */
  const NO_CLIENT_ERRORS = ['/healthz', '/readyz', '/metrics', '/openapi.json'];

  interface LintReport {
    totals: { errors: number; warnings: number; ignored: number };
    problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
  }

  /** Runs the installed @redocly/cli with node, in `cwd`, offline: no telemetry, no update check. */
  function redocly(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const packageJson = require.resolve('@redocly/cli/package.json');
    const { bin } = JSON.parse(fs.readFileSync(packageJson, 'utf8')) as { bin: Record<string, string> };
    const cli = path.join(path.dirname(packageJson), bin.redocly!);
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    return new Promise((resolve) => {
      // The timeout only stops a hung child (its problems then fail the test below); nothing here measures time.
      execFile(process.execPath, [cli, ...args], { cwd, env, timeout: 5 * 60 * 1000, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
      });
    });
  }

  it('finds no error and no warning in the served /openapi.json', async () => {
    const served = await app.http.get('/openapi.json').expect(200);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wallet-redocly-'));
    try {
      fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(served.body, null, 2));
      // Redocly reads .redocly.lint-ignore.yaml from the directory it runs in (JSON is YAML).
      const pointers = NO_CLIENT_ERRORS.map((p) => `#/paths/${p.replaceAll('~', '~0').replaceAll('/', '~1')}/get/responses`);
      fs.writeFileSync(path.join(dir, '.redocly.lint-ignore.yaml'), JSON.stringify({ 'openapi.json': { 'operation-4xx-response': pointers } }, null, 2));

      const run = await redocly(['lint', '--extends=recommended', '--format=json', 'openapi.json'], dir);
      let report: LintReport;
      try {
        report = JSON.parse(run.stdout) as LintReport;
      } catch {
        throw new Error(`redocly lint printed no JSON report (exit ${run.code}):\n${run.stdout}\n${run.stderr}`);
      }
      const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
      expect(problems).toEqual([]);
      expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: NO_CLIENT_ERRORS.length });
      expect(run.code).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('real answers conform to the documented schema for their status', () => {
  it('(the schema check used below refuses bodies that do not conform)', () => {
    const login = doc.paths['/api/users/login']!.post!.responses['200']!.content!['application/json']!.schema!;
    expect(violations(doc, login, { message: 'Login successful', token: 42 })).toEqual(['$.profile: required', '$.token: expected string, got 42']);
    const adminError = { $ref: '#/components/schemas/AdminErrorBody' };
    expect(violations(doc, adminError, { error: 'Not found' })).toEqual(['$.message: required']);
    const paymentsError = { $ref: '#/components/schemas/PaymentsErrorBody' };
    expect(violations(doc, paymentsError, { success: true, message: 'x' })).not.toEqual([]);
  });

  it('signup 201, login 200, admin user list 200', async () => {
    const fields = userFields();
    const signup = await app.http.post('/api/users/signup').send(fields);
    expect(signup.status).toBe(201);
    expectDocumented('post', '/api/users/signup', signup);
    const login = await app.http.post('/api/users/login').send({ identifier: fields.email, password: fields.password });
    expect(login.status).toBe(200);
    expectDocumented('post', '/api/users/login', login);
    const list = await app.http.get('/api/admin/users').set(bearer(await adminToken(app)));
    expect(list.status).toBe(200);
    expect(list.body.length).toBeGreaterThan(0);
    expectDocumented('get', '/api/admin/users', list);
  });

  it('validation 400 and missing-token 401 in each group shape', async () => {
    const invalid = await app.http.post('/api/users/signup').send({ ...userFields(), email: 'not-an-email' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.details).toEqual([expect.objectContaining({ path: 'body.email' })]);
    expectDocumented('post', '/api/users/signup', invalid);

    const badAdminUpdate = await app.http.put('/api/admin/users/not-a-uuid').set(bearer(await adminToken(app))).send({});
    expect(badAdminUpdate.status).toBe(400);
    expectDocumented('put', '/api/admin/users/:userId', badAdminUpdate);

    const user = await createUser(app);
    const badIntent = await app.http.post('/api/payments/create-payment-intent').set(bearer(user.token)).send({ amount: -5 });
    expect(badIntent.status).toBe(400);
    expectDocumented('post', '/api/payments/create-payment-intent', badIntent);

    for (const [method, p] of [
      ['get', '/api/users/profile'],
      ['get', '/api/admin/users'],
      ['post', '/api/ledger/transfer'],
      ['post', '/api/payments/mint-tokens'],
    ] as const) {
      const res = await app.http[method](p).send({});
      expect(res.status).toBe(401);
      expectDocumented(method, p, res);
    }
  });

  it('a user token on an admin route: 403 as documented', async () => {
    const user = await createUser(app);
    const res = await app.http.get('/api/admin/transactions').set(bearer(user.token));
    expect(res.status).toBe(403);
    expectDocumented('get', '/api/admin/transactions', res);
  });

  it('a webhook body over 100 kB: 413 as documented', async () => {
    const res = await app.http
      .post('/api/payments/webhook')
      .set('Content-Type', 'application/json')
      .set('x-paystack-signature', 'irrelevant')
      .send(JSON.stringify({ event: 'charge.success', data: { reference: 'r', padding: 'x'.repeat(101 * 1024) } }));
    expect(res.status).toBe(413);
    expectDocumented('post', '/api/payments/webhook', res);
  });
});

describe('the Postman collection', () => {
  const docsDir = path.resolve(__dirname, '../../docs');

  it('is committed exactly as npm run postman generates it from the document', () => {
    const files = postmanFiles(document);
    expect(fs.readFileSync(path.join(docsDir, COLLECTION_FILE), 'utf8')).toBe(files[COLLECTION_FILE]);
    expect(fs.readFileSync(path.join(docsDir, ENVIRONMENT_FILE), 'utf8')).toBe(files[ENVIRONMENT_FILE]);
  });

  it('has one request per route, each sending the token its access needs; logins store the tokens', () => {
    interface Item {
      name: string;
      item?: Item[];
      event?: { listen: string; script: { exec: string[] } }[];
      request?: { method: string; auth: { type: string; bearer?: { value: string }[] }; url: { path: string[] } };
    }
    const collection = JSON.parse(fs.readFileSync(path.join(docsDir, COLLECTION_FILE), 'utf8')) as { item: Item[] };
    const requests = collection.item.flatMap((folder) => folder.item ?? []);
    expect(requests).toHaveLength([...operations(doc)].length);
    const byRoute = new Map(requests.map((r) => [`${r.request!.method} /${r.request!.url.path.join('/')}`, r]));
    expect(byRoute.size).toBe(requests.length);

    for (const { route, fullPath } of tableRoutes()) {
      const request = byRoute.get(`${route.method.toUpperCase()} ${fullPath}`);
      expect({ fullPath, present: request !== undefined }).toEqual({ fullPath, present: true });
      const auth = request!.request!.auth;
      if (route.access === 'public') expect(auth).toEqual({ type: 'noauth' });
      else expect(auth.bearer?.[0]?.value).toBe(route.access === 'admin' ? '{{admin_token}}' : '{{user_token}}');
    }
    const script = (key: string) => byRoute.get(key)?.event?.find((e) => e.listen === 'test')?.script.exec.join('\n') ?? '';
    expect(script('POST /api/users/login')).toContain("pm.environment.set('user_token', pm.response.json().token);");
    expect(script('POST /api/admin/login')).toContain("pm.environment.set('admin_token', pm.response.json().token);");

    const environment = JSON.parse(fs.readFileSync(path.join(docsDir, ENVIRONMENT_FILE), 'utf8')) as { values: { key: string; value: string }[] };
    expect(environment.values).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'base_url', value: 'http://localhost:3000' }),
        expect.objectContaining({ key: 'user_token' }),
        expect.objectContaining({ key: 'admin_token' }),
      ]),
    );
  });

  it('runs against the app: signup and the logins store what the protected requests then send', async () => {
    interface Request {
      method: string;
      auth: { type: string; bearer?: { value: string }[] };
      header: { key: string; value: string; disabled?: boolean }[];
      body?: { raw: string };
      url: { path: string[]; variable?: { key: string; value: string }[]; query?: { key: string; value: string; disabled?: boolean }[] };
    }
    interface Item {
      item?: Item[];
      event?: { listen: string; script: { exec: string[] } }[];
      request?: Request;
    }
    const collection = JSON.parse(fs.readFileSync(path.join(docsDir, COLLECTION_FILE), 'utf8')) as { item: Item[] };
    const environment = JSON.parse(fs.readFileSync(path.join(docsDir, ENVIRONMENT_FILE), 'utf8')) as { values: { key: string; value: string }[] };
    const vars = new Map(environment.values.map((v) => [v.key, v.value]));
    const fill = (text: string) => text.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => vars.get(name) ?? '');
    const items = new Map(
      collection.item.flatMap((f) => f.item ?? []).map((i) => [`${i.request!.method} /${i.request!.url.path.join('/')}`, i]),
    );

    /** Sends one request of the collection as Postman would, then runs its test script with a minimal `pm`. */
    const send = async (key: string) => {
      const { request, event } = items.get(key)!;
      const variables = new Map((request!.url.variable ?? []).map((v) => [v.key, fill(v.value)]));
      const urlPath = `/${request!.url.path.map((s) => (s.startsWith(':') ? variables.get(s.slice(1))! : s)).join('/')}`;
      let call = app.http[request!.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete'](urlPath);
      for (const h of request!.header.filter((x) => !x.disabled)) call = call.set(h.key, fill(h.value));
      if (request!.auth.type === 'bearer') call = call.set('Authorization', `Bearer ${fill(request!.auth.bearer![0]!.value)}`);
      const res = await (request!.body ? call.send(fill(request!.body.raw)) : call);
      const pm = { response: { code: res.status, json: () => res.body as unknown }, environment: { set: (k: string, v: unknown) => vars.set(k, String(v)) } };
      for (const e of event ?? []) if (e.listen === 'test') new Function('pm', e.script.exec.join('\n'))(pm);
      return res;
    };

    expect((await send('POST /api/users/signup')).status).toBe(201);
    expect(vars.get('user_id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await send('POST /api/users/login')).status).toBe(200);
    expect(vars.get('user_token')).toMatch(/^ey/);
    const profile = await send('GET /api/users/profile');
    expect(profile.status).toBe(200);
    expect(profile.body.ledgerPublicKey).toBe(vars.get('ledger_public_key'));

    // The collection's admin login example is the admin the tests bootstrap.
    await adminToken(app);
    expect((await send('POST /api/admin/login')).status).toBe(200);
    expect(vars.get('admin_token')).toMatch(/^ey/);
    expect((await send('GET /api/admin/users')).status).toBe(200);
    expect((await send('PUT /api/admin/users/:userId')).body).toEqual({ message: 'User updated successfully' });
    expect((await send('GET /api/ledger/transactions/:userId')).status).toBe(200);
  });
});
