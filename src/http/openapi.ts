import fs from 'node:fs';
import path from 'node:path';
import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
  type ZodMediaTypeObject,
} from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import type { Access, RouteDef } from '../routes/route-table';
import { errorShapeOf, type ErrorShape } from './error-shapes';
import { errorSchemaOf, exampleErrorBody, GENERIC_MESSAGE, STATUS_TEXT } from './openapi/error-bodies';
import { ROUTE_NOTES, routeKey, type RouteNotes } from './openapi/route-notes';
import { serviceOperations } from './openapi/service-operations';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

const ACCESS_TEXT: Record<Access, string> = {
  public: '**Access: public** (no token).',
  user: '**Access: user** — `Authorization: Bearer <token>` from `POST /api/users/login`; an admin token gets 403.',
  admin: '**Access: admin** — `Authorization: Bearer <token>` from `POST /api/admin/login`; a user token gets 403, and so does the setup-only token of `ADMIN_MFA_REQUIRED`, except on the two MFA setup routes.',
  any: '**Access: any signed-in account** — a user or an admin bearer token.',
};

const TAG_TEXT: Record<string, string> = {
  Users: 'Accounts, login, profile and password reset. Errors: `{error, details?}`.',
  Admin: 'Admin accounts and their MFA, user management, transactions, wallet keys. Errors: `{message, details?}`.',
  Ledger: 'Balances, transfers and token issuance on the ledger. Errors: `{error, details?}`; a transfer to a missing receiver is plain text.',
  Payments: 'Naira purchases through Paystack, token minting, and cash-out (banks, payout accounts, withdrawals paid by Paystack Transfers). Errors: `{success: false, message}`; the callback answers HTML pages.',
  Operations: 'Health, readiness, metrics and this document.',
};

const DESCRIPTION = `A wallet backend: user and admin accounts, token transfers on a Stellar ledger, and token purchases paid in Naira through Paystack.

**Authentication.** Protected routes take \`Authorization: Bearer <JWT>\`. User tokens come from \`POST /api/users/login\` (1 hour), admin tokens from \`POST /api/admin/login\` (2 hours; once an admin's MFA is on, the login takes the one-time code as \`otp\`). A missing, expired or invalid token is 401; a valid token of the wrong role is 403. Each operation states its access: public, user, admin or any.

**Errors.** Each route group keeps one error body: \`/api/users\` and \`/api/ledger\` answer \`{error, details?}\`, \`/api/admin\` answers \`{message, details?}\`, \`/api/payments\` answers \`{success: false, message}\`. Validation failures list the invalid fields in \`details\`.

**Lists** take \`?limit\` (default 100, at most 1000) and \`?offset\`; the body is an array and the total is in \`X-Total-Count\`.

**Money-moving routes** (transfer, mint) accept an optional \`Idempotency-Key\` header (required on \`POST /api/payments/withdrawals\`, where money leaves the service): the same key and body answer the same ledger transaction's current state (200 confirmed, 202 pending, or its refusal) and never move money again. A transfer or mint the ledger has not decided within the service's wait answers 202 with \`{message, result: {transactionId, hash, status: "pending"}}\`; transaction records carry \`status\` (pending, confirmed, failed).

**Two people for money creation.** With MINT_APPROVAL_THRESHOLD set (required in production), a \`mint-tokens\` or \`create-asset\` of more tokens moves nothing: it answers 202 with the approval's id (\`approvalId\`, and the \`Approval-Id\` header), and another admin approves it with \`POST /api/admin/approvals/{id}/approve\` within 24 hours, which answers what the original route would have.`;

/** `/users/:userId` -> `/users/{userId}`. */
export const toOpenApiPath = (expressPath: string) => expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The full Express path of a route-table row. */
export const fullPathOf = (base: string, route: Pick<RouteDef, 'path'>) => (route.path === '/' ? base : `${base}${route.path}`);

const pascal = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** `post /api/users/signup` -> `postUsersSignup`; `{userId}` -> `ByUserId`. Unique per method and path. */
export function operationIdOf(method: string, fullPath: string): string {
  const words = fullPath
    .split('/')
    .filter((s) => s !== '' && s !== 'api')
    .flatMap((segment) => {
      const param = /^:(.+)$/.exec(segment);
      if (param) return [`By${pascal(param[1]!)}`];
      return segment.split(/[^A-Za-z0-9]+/).filter(Boolean).map(pascal);
    });
  return `${method}${words.join('')}`;
}

const tagOf = (base: string) => pascal(base.split('/').filter(Boolean).pop() ?? 'api');

interface PackageFacts {
  version: string;
  license: string;
}

function packageFacts(): PackageFacts {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as Partial<PackageFacts>;
    return { version: pkg.version ?? '0.0.0', license: pkg.license ?? 'UNLICENSED' };
  } catch {
    return { version: '0.0.0', license: 'UNLICENSED' };
  }
}

/**
 * package.json's licence as OpenAPI 3.1 names one: by an SPDX expression. npm's `UNLICENSED`
 * (private: no licence is granted) is not on the SPDX list, so it goes by a LicenseRef.
 */
function licenseOf(spdx: string): { name: string; identifier: string } {
  return spdx === 'UNLICENSED' ? { name: 'Proprietary (UNLICENSED)', identifier: 'LicenseRef-Proprietary' } : { name: spdx, identifier: spdx };
}

/** A JSON media type with one example, or several named ones. */
function jsonContent(schema: ZodMediaTypeObject['schema'], examples: { example?: unknown; examples?: RouteNotes['responses'] }): ZodMediaTypeObject {
  if (examples.examples) return { schema, examples: examples.examples };
  return examples.example === undefined ? { schema } : { schema, example: examples.example };
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 60)
    .replace(/^-+|-+$/g, '');

/** The first field a validation error would name, for the example of a 400. */
function firstField(route: RouteDef): string | undefined {
  for (const part of ['body', 'params', 'query'] as const) {
    const schema = route.request?.[part];
    if (schema instanceof z.ZodObject) {
      const key = Object.keys(schema.shape)[0];
      if (key) return `${part}.${key}`;
    }
  }
  return undefined;
}

/** Route-table params schemas are objects; a path parameter without one is still declared (as a string). */
function paramsOf(route: RouteDef): z.ZodObject | undefined {
  const declared = route.request?.params;
  if (declared instanceof z.ZodObject) return declared;
  if (declared) throw new Error(`OpenAPI: params of ${route.method.toUpperCase()} ${route.path} must be a z.object()`);
  const names = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  return names.length > 0 ? z.object(Object.fromEntries(names.map((n) => [n, z.string()]))) : undefined;
}

function queryOf(route: RouteDef, notes: RouteNotes): z.ZodObject | undefined {
  const declared = route.request?.query ?? notes.query;
  if (declared === undefined || declared instanceof z.ZodObject) return declared;
  throw new Error(`OpenAPI: query of ${route.method.toUpperCase()} ${route.path} must be a z.object()`);
}

const idempotencyKey = z.string().regex(/^[A-Za-z0-9_.:-]{1,200}$/);
const IDEMPOTENCY_TEXT = 'The same key and body from the same caller within 24 hours answer the same ledger transaction (its current state) without moving money again; another body is 409.';

/** The header as a money-moving route takes it: optional (transfer, mint), or required where money leaves the service (withdrawals). */
const idempotencyHeaders = {
  optional: z.object({ 'Idempotency-Key': idempotencyKey.optional().meta({ description: `Optional. ${IDEMPOTENCY_TEXT}` }) }),
  required: z.object({ 'Idempotency-Key': idempotencyKey.meta({ description: `Required: a request without one is 400. The same key and body from the same caller answer the same withdrawal as it stands now, never a second one; another body is 409.` }) }),
};

function successResponse(route: RouteDef, notes: RouteNotes): ResponseConfig {
  const { schema, contentType, headers } = route.response ?? {};
  const response: ResponseConfig = { description: route.summary };
  if (headers) response.headers = headers;
  const examples = { example: notes.response, examples: notes.responses };
  if (schema) response.content = { 'application/json': jsonContent(schema, examples) };
  else if (contentType) response.content = { [contentType]: jsonContent({ type: 'string' }, examples) };
  return response;
}

/** Error statuses of a route: the generic ones its row implies, then its own (ROUTE_NOTES). */
function errorMessages(route: RouteDef, notes: RouteNotes): Map<number, string[]> {
  const statuses = new Map<number, string[]>();
  const add = (status: number, messages: string[]) => statuses.set(status, [...(statuses.get(status) ?? []), ...messages]);
  if (route.request) add(400, [GENERIC_MESSAGE[400]!]);
  if (route.request?.body) add(413, [GENERIC_MESSAGE[413]!]);
  if (route.access !== 'public') add(401, [GENERIC_MESSAGE[401]!]);
  if (route.access === 'user' || route.access === 'admin') add(403, [GENERIC_MESSAGE[403]!]);
  if (route.rateLimit) add(429, [GENERIC_MESSAGE[429]!]);
  for (const [status, messages] of Object.entries(notes.errors ?? {})) add(Number(status), messages);
  if (route.errors?.plainText && !statuses.has(400)) add(400, []);
  return new Map([...statuses.entries()].sort(([a], [b]) => a - b));
}

function errorResponse(status: number, messages: string[], route: RouteDef, shape: ErrorShape, notes: RouteNotes): ResponseConfig {
  const response: ResponseConfig = { description: STATUS_TEXT[status] ?? `Error ${status}` };
  if (status === 503) response.headers = { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } };
  if (route.errors?.page) {
    // The page writes its own text: the route's message (listed after the generic one) when it has one.
    const text = messages.at(-1) ?? '';
    response.content = { 'text/html': { schema: { type: 'string' }, example: `<!doctype html><html lang="en"><body><p>${text}</p></body></html>` } };
    return response;
  }
  const field = firstField(route);
  const bodies = messages.map((message) =>
    exampleErrorBody(shape, message, status === 400 && message === GENERIC_MESSAGE[400] && field ? { path: field, message: 'Invalid input' } : undefined),
  );
  const content: NonNullable<ResponseConfig['content']> = {};
  if (bodies.length === 1) content['application/json'] = { schema: errorSchemaOf(shape), example: bodies[0] };
  else if (bodies.length > 1) {
    content['application/json'] = {
      schema: errorSchemaOf(shape),
      examples: Object.fromEntries(bodies.map((value, i) => [slug(messages[i]!), { summary: messages[i]!, value }])),
    };
  }
  if (status === 400 && route.errors?.plainText) content['text/plain'] = { schema: { type: 'string' }, example: notes.plainText400 };
  response.content = content;
  return response;
}

/** A journal write whose outcome is still unknown after the service's bounded wait (CONTRACT 8). */
const pendingWriteSchema = z.object({
  message: z.string(),
  result: z.object({ transactionId: z.uuid(), hash: z.string(), status: z.literal('pending') }),
});

/** A request above MINT_APPROVAL_THRESHOLD, recorded for a second admin and nothing moved (CONTRACT 11), in the payments group's success shape. */
const awaitingApprovalSchema = z.object({ success: z.literal(true), message: z.string(), approvalId: z.uuid() });

const PENDING_TEXT = 'Accepted: the ledger has not decided yet. The record says `pending`; retry with the same Idempotency-Key for its state.';
const APPROVAL_TEXT =
  'Or, above MINT_APPROVAL_THRESHOLD: nothing moved, the request waits for a second admin (`POST /api/admin/approvals/{id}/approve`); the approval\'s id is in the `Approval-Id` header (and `approvalId` of a JSON body).';

/** A success response with a plain-text form besides its JSON one (`text`), when the route has one. */
function withText(response: ResponseConfig, text: string | undefined): ResponseConfig {
  if (text === undefined) return response;
  return { ...response, content: { ...response.content, 'text/plain': { schema: { type: 'string' }, example: text } } };
}

/**
 * The 202 answers of a route: a ledger write still pending (CONTRACT 8), a request waiting for a
 * second admin (CONTRACT 11), each as JSON or plain text as the route answers it.
 */
function acceptedResponse(notes: RouteNotes): ResponseConfig | undefined {
  // A form's example is its body: text for a route that answers plain text, else JSON of its schema.
  const forms = [
    { summary: 'Pending on the ledger', value: notes.accepted, schema: pendingWriteSchema },
    { summary: 'Pending on the ledger (plain text)', value: notes.textAnswers?.[202], schema: undefined },
    { summary: 'Waiting for a second admin', value: notes.approval, schema: awaitingApprovalSchema },
  ].filter((f) => f.value !== undefined);
  if (forms.length === 0) return undefined;
  const text = forms.filter((f) => typeof f.value === 'string');
  const json = forms.filter((f): f is (typeof f & { schema: z.ZodType }) => typeof f.value !== 'string' && f.schema !== undefined);
  const content: NonNullable<ResponseConfig['content']> = {};
  if (text.length > 0) content['text/plain'] = mediaOf({ type: 'string' }, text);
  // At most two JSON forms (pending, waiting for approval): a body is one or the other.
  if (json.length > 0) content['application/json'] = mediaOf(json.length === 1 ? json[0]!.schema : z.union([json[0]!.schema, json[1]!.schema]), json);
  const response: ResponseConfig = { description: notes.approval === undefined ? PENDING_TEXT : `${PENDING_TEXT} ${APPROVAL_TEXT}`, content };
  if (notes.approval !== undefined) response.headers = { 'Approval-Id': { description: 'The approval the request waits for (only then)', schema: { type: 'string', format: 'uuid' } } };
  return response;
}

/** One example as `example`, several as named `examples`. */
function mediaOf(schema: ZodMediaTypeObject['schema'], forms: { summary: string; value: unknown }[]): ZodMediaTypeObject {
  if (forms.length === 1) return { schema, example: forms[0]!.value };
  return { schema, examples: Object.fromEntries(forms.map((f) => [slug(f.summary), { summary: f.summary, value: f.value }])) };
}

/** One route-table row as an OpenAPI operation. */
function describeRoute(base: string, route: RouteDef): RouteConfig {
  const fullPath = fullPathOf(base, route);
  const notes = ROUTE_NOTES[routeKey(route.method, fullPath)] ?? {};
  const shape = errorShapeOf(base);
  const body = route.request?.body;
  const responses: RouteConfig['responses'] = { [route.response?.status ?? 200]: withText(successResponse(route, notes), notes.textAnswers?.[200]) };
  const accepted = acceptedResponse(notes);
  if (accepted) responses[202] = accepted;
  for (const [status, messages] of errorMessages(route, notes)) responses[status] = errorResponse(status, messages, route, shape, notes);
  return {
    method: route.method,
    path: toOpenApiPath(fullPath),
    operationId: operationIdOf(route.method, fullPath),
    summary: route.summary,
    description: [ACCESS_TEXT[route.access], notes.description].filter(Boolean).join('\n\n'),
    tags: [tagOf(base)],
    security: route.access === 'public' ? [] : [{ bearerAuth: [] }],
    'x-access': route.access,
    request: {
      params: paramsOf(route),
      query: queryOf(route, notes),
      headers: notes.idempotent ? idempotencyHeaders[notes.idempotent === 'required' ? 'required' : 'optional'] : undefined,
      body: body ? { required: true, content: { 'application/json': jsonContent(body, { example: notes.request }) } } : undefined,
    },
    responses,
  };
}

/**
 * Query and path values arrive as text, so they can never be JSON null. The generator decides
 * nullability by trying to parse null, which z.coerce.number() accepts (null -> 0): drop it.
 */
function withoutNullParameters(doc: OpenApiDocument): OpenApiDocument {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, { parameters?: { schema?: { type?: unknown } }[] }>)) {
      for (const parameter of operation.parameters ?? []) {
        const type = parameter.schema?.type;
        if (Array.isArray(type) && type.includes('null')) {
          const rest = type.filter((t) => t !== 'null');
          parameter.schema!.type = rest.length === 1 ? rest[0] : rest;
        }
      }
    }
  }
  return doc;
}

export interface DocumentOptions {
  /**
   * Where clients reach this deployment (config.publicBaseUrl: PUBLIC_BASE_URL, by default
   * http://localhost:PORT): the document's one server, the base URL of Swagger UI's "Try it out"
   * and of generated clients. The served document always names it; without it (the Postman
   * generator, whose requests take {{base_url}}) the document names no server.
   */
  serverUrl?: string;
}

/**
 * The OpenAPI 3.1 document of the service, generated from the route tables (the same zod schemas
 * that validate requests) plus the few routes outside them (health, metrics, the webhook).
 * Request schemas are documented as their input types: what a client sends, before transforms.
 */
export function buildOpenApiDocument(routeGroups: Record<string, RouteDef[]>, options: DocumentOptions = {}): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'A user token (POST /api/users/login, 1 hour) or an admin token (POST /api/admin/login, 2 hours)',
  });
  for (const [base, routes] of Object.entries(routeGroups)) {
    for (const route of routes) registry.registerPath(describeRoute(base, route));
  }
  for (const operation of serviceOperations) registry.registerPath(operation);

  const tags = [...Object.keys(routeGroups).map(tagOf), 'Operations'].map((name) => ({
    name,
    description: TAG_TEXT[name] ?? `Routes under /api/${name.toLowerCase()}`,
  }));
  const pkg = packageFacts();
  const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Wallet Service API', version: pkg.version, description: DESCRIPTION, license: licenseOf(pkg.license) },
    ...(options.serverUrl === undefined ? {} : { servers: [{ url: options.serverUrl, description: 'This deployment (PUBLIC_BASE_URL)' }] }),
    tags,
  });
  delete doc.webhooks;
  return withoutNullParameters(doc);
}
