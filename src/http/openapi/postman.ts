import crypto from 'node:crypto';
import type { OpenApiDocument } from '../openapi';

/**
 * A Postman collection (v2.1) generated from the OpenAPI document: one request per operation,
 * foldered by tag, with the documented example bodies. Logging in stores the tokens in the
 * environment and every protected request sends the token its access needs.
 */

export const COLLECTION_FILE = 'wallet-service.postman_collection.json';
export const ENVIRONMENT_FILE = 'wallet-service.postman_environment.json';

const DEFAULT_BASE_URL = 'http://localhost:3000';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Environment variables: what the requests read and the test scripts below fill in. */
const VARIABLES: { key: string; value: string; secret?: boolean; description: string }[] = [
  { key: 'base_url', value: DEFAULT_BASE_URL, description: 'Where the service listens' },
  { key: 'user_token', value: '', secret: true, description: 'Stored by POST /api/users/login' },
  { key: 'admin_token', value: '', secret: true, description: 'Stored by POST /api/admin/login' },
  { key: 'user_id', value: '', description: 'Stored by POST /api/users/signup' },
  { key: 'ledger_public_key', value: '', description: "The logged-in user's wallet, stored by POST /api/users/login" },
  { key: 'payment_reference', value: '', description: 'Stored by POST /api/payments/create-payment-intent' },
  { key: 'payout_account_id', value: '', description: 'Stored by POST /api/payments/payout-accounts' },
  { key: 'withdrawal_id', value: '', description: 'Stored by POST /api/payments/withdrawals' },
  { key: 'approval_id', value: '', description: 'Stored by POST /api/payments/mint-tokens or POST /api/ledger/create-asset above MINT_APPROVAL_THRESHOLD (the Approval-Id header)' },
];

/** Responses whose fields are stored in the environment, by `METHOD /path`: variable <- JSON path. */
const CAPTURES: Record<string, [variable: string, field: string][]> = {
  'POST /api/users/signup': [['user_id', 'userId']],
  'POST /api/users/login': [
    ['user_token', 'token'],
    ['ledger_public_key', 'profile.ledgerPublicKey'],
  ],
  'POST /api/admin/login': [['admin_token', 'token']],
  'POST /api/payments/create-payment-intent': [['payment_reference', 'reference']],
  'POST /api/payments/payout-accounts': [['payout_account_id', 'payoutAccountId']],
  'POST /api/payments/withdrawals': [['withdrawal_id', 'withdrawalId']],
};

/** Response headers stored in the environment when the answer carries them, by `METHOD /path`: variable <- header. */
const HEADER_CAPTURES: Record<string, [variable: string, header: string][]> = {
  'POST /api/payments/mint-tokens': [['approval_id', 'Approval-Id']],
  'POST /api/ledger/create-asset': [['approval_id', 'Approval-Id']],
};

/** Path and query parameters and top-level body fields filled from the environment rather than from examples. */
const FROM_ENVIRONMENT: Record<string, string> = {
  userId: '{{user_id}}',
  publicKey: '{{ledger_public_key}}',
  reference: '{{payment_reference}}',
  payoutAccountId: '{{payout_account_id}}',
};

/** A path's `{id}` names what the segment before it lists: filled from that variable. */
const IDS_BY_COLLECTION: Record<string, string> = {
  'payout-accounts': '{{payout_account_id}}',
  withdrawals: '{{withdrawal_id}}',
  approvals: '{{approval_id}}',
};

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: { default?: unknown; example?: unknown };
}
interface MediaType {
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  'x-access'?: string;
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, MediaType> };
}

const stableId = (name: string) => {
  const hex = crypto.createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
};

function exampleOf(media: MediaType | undefined): unknown {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  return Object.values(media.examples ?? {})[0]?.value;
}

function authFor(access: string | undefined): Record<string, unknown> {
  if (access === undefined || access === 'public') return { type: 'noauth' };
  const token = access === 'admin' ? '{{admin_token}}' : '{{user_token}}';
  return { type: 'bearer', bearer: [{ key: 'token', value: token, type: 'string' }] };
}

function testScript(key: string): Record<string, unknown>[] | undefined {
  const captures = CAPTURES[key];
  const headers = HEADER_CAPTURES[key];
  if (!captures && !headers) return undefined;
  const exec = [
    ...(captures
      ? [
          'if (pm.response.code >= 200 && pm.response.code < 300) {',
          ...captures.map(([variable, field]) => `  pm.environment.set('${variable}', pm.response.json().${field});`),
          '}',
        ]
      : []),
    ...(headers ?? []).map(([variable, header]) => `if (pm.response.headers.get('${header}')) pm.environment.set('${variable}', pm.response.headers.get('${header}'));`),
  ];
  return [{ listen: 'test', script: { type: 'text/javascript', exec } }];
}

function bodyFor(operation: Operation): Record<string, unknown> | undefined {
  const example = exampleOf(operation.requestBody?.content?.['application/json']);
  if (example === undefined) return undefined;
  const filled =
    example !== null && typeof example === 'object' && !Array.isArray(example)
      ? Object.fromEntries(Object.entries(example).map(([k, v]) => [k, typeof v === 'string' && FROM_ENVIRONMENT[k] ? FROM_ENVIRONMENT[k] : v]))
      : example;
  return { mode: 'raw', raw: JSON.stringify(filled, null, 2), options: { raw: { language: 'json' } } };
}

function urlFor(openApiPath: string, parameters: Parameter[]): Record<string, unknown> {
  const segments = openApiPath.split('/').filter(Boolean).map((s) => s.replace(/^\{(.+)\}$/, ':$1'));
  const query = parameters
    .filter((p) => p.in === 'query')
    .map((p) => ({
      key: p.name,
      value: FROM_ENVIRONMENT[p.name] ?? String(p.schema?.default ?? p.schema?.example ?? ''),
      disabled: !p.required && FROM_ENVIRONMENT[p.name] === undefined,
      ...(p.description ? { description: p.description } : {}),
    }));
  const fromPath = (name: string) => (name === 'id' ? IDS_BY_COLLECTION[segments[segments.indexOf(':id') - 1] ?? ''] : undefined);
  const variable = parameters
    .filter((p) => p.in === 'path')
    .map((p) => ({ key: p.name, value: FROM_ENVIRONMENT[p.name] ?? fromPath(p.name) ?? '', ...(p.description ? { description: p.description } : {}) }));
  const enabledQuery = query.filter((q) => !q.disabled).map((q) => `${q.key}=${q.value}`);
  const url: Record<string, unknown> = {
    raw: `{{base_url}}/${segments.join('/')}${enabledQuery.length > 0 ? `?${enabledQuery.join('&')}` : ''}`,
    host: ['{{base_url}}'],
    path: segments,
  };
  if (query.length > 0) url.query = query;
  if (variable.length > 0) url.variable = variable;
  return url;
}

function requestItem(method: string, openApiPath: string, operation: Operation): Record<string, unknown> {
  const parameters = operation.parameters ?? [];
  const body = bodyFor(operation);
  const header = [
    ...(body ? [{ key: 'Content-Type', value: 'application/json' }] : []),
    ...parameters
      .filter((p) => p.in === 'header')
      .map((p) => ({
        key: p.name,
        value: p.name === 'Idempotency-Key' ? '{{$guid}}' : `<${p.name}>`,
        disabled: !p.required,
        ...(p.description ? { description: p.description } : {}),
      })),
  ];
  const request: Record<string, unknown> = { method: method.toUpperCase(), auth: authFor(operation['x-access']), header };
  if (body) request.body = body;
  request.url = urlFor(openApiPath, parameters);
  if (operation.description) request.description = operation.description;
  const event = testScript(`${method.toUpperCase()} ${openApiPath}`);
  return { name: operation.summary ?? `${method.toUpperCase()} ${openApiPath}`, ...(event ? { event } : {}), request };
}

export function buildPostmanCollection(doc: OpenApiDocument): Record<string, unknown> {
  const folders = new Map<string, Record<string, unknown>[]>((doc.tags ?? []).map((t) => [t.name, []]));
  for (const [openApiPath, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const operation = (item as Record<string, Operation | undefined>)[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? 'Other';
      if (!folders.has(tag)) folders.set(tag, []);
      folders.get(tag)!.push(requestItem(method, openApiPath, operation));
    }
  }
  const descriptions = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
  return {
    info: {
      _postman_id: stableId(`${doc.info.title} collection`),
      name: doc.info.title,
      description: `${doc.info.description ?? ''}\n\nGenerated from the OpenAPI document by \`npm run postman\`; do not edit by hand. Send the user login (POST /api/users/login) and the admin login (POST /api/admin/login) first: they store the tokens the other requests send.`,
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    item: [...folders.entries()]
      .filter(([, items]) => items.length > 0)
      .map(([name, items]) => ({ name, ...(descriptions.get(name) ? { description: descriptions.get(name) } : {}), item: items })),
    variable: [{ key: 'base_url', value: DEFAULT_BASE_URL, type: 'string' }],
  };
}

export function buildPostmanEnvironment(): Record<string, unknown> {
  return {
    id: stableId('Wallet Service environment'),
    name: 'Wallet Service (local)',
    values: VARIABLES.map((v) => ({ key: v.key, value: v.value, type: v.secret ? 'secret' : 'default', enabled: true, description: v.description })),
    _postman_variable_scope: 'environment',
  };
}

/** The two files' exact text, as `npm run postman` writes them. */
export function postmanFiles(doc: OpenApiDocument): Record<typeof COLLECTION_FILE | typeof ENVIRONMENT_FILE, string> {
  const text = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  return { [COLLECTION_FILE]: text(buildPostmanCollection(doc)), [ENVIRONMENT_FILE]: text(buildPostmanEnvironment()) };
}
