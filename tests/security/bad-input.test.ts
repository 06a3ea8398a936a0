import { sql } from 'drizzle-orm';
import crypto from 'node:crypto';
import { Keypair } from '@stellar/stellar-sdk';
import fc from 'fast-check';
import jwt from 'jsonwebtoken';
import type { Response } from 'supertest';
import { createAssetBody } from '../../src/routes/ledger.routes';
import { intentBody, mintBody } from '../../src/routes/payments.routes';
import { provisionBody, updateUserBody } from '../../src/routes/admin.routes';
import { signupBody } from '../../src/routes/users.routes';
import { signPaystackPayload } from '@wallet/paystack-sandbox';
import { ADMIN, adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import {
  badIdempotencyKey,
  contentType,
  evilAmount,
  evilJson,
  evilQuery,
  evilSegment,
  evilString,
  mutatedBody,
  objectSource,
  percentEncode,
} from '../helpers/evil-input';
import { countRows, databaseState, queryRows } from '../helpers/database-state';
import { ledgerBalance } from '../helpers/ledger-fixtures';
import { shapeOfGroup, shapeProblem, type RouteKey } from '../helpers/route-inventory';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * Property: whatever a client sends to a route that takes input, the answer is a 4xx in the
 * route group's error shape (or the ledger's documented plain-text 400 for a missing receiver,
 * or the callback's HTML page), never a 5xx, and nothing changes: every table's rows and the
 * token balances of the test users and the distribution account are as before.
 *
 * The inputs are built from valid-looking bases (a duplicate signup, an unfunded sender, an
 * unknown user id...) so that those which pass validation reach the services and their
 * refusals are tested too. The few that a route would rightly accept (and act on) are filtered
 * out by `accepted` with fc.pre; routes that only read may answer 2xx.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 40);

// One app for every run. 10 tokens per Naira: Naira amounts that pass validation but would mint
// more than the ledger's maximum reach the payment service, which must refuse them.
const { ledger, provider, app } = withSandboxes({ app: { env: { TOKENS_PER_NAIRA: '10' }, scope: 'file' } });
let alice: CreatedUser; // active wallet, no tokens: every transfer she makes must fail
let bob: CreatedUser;
let admin: string;
let distributionKey: string;

beforeAll(async () => {
  alice = await createUser(app);
  bob = await createUser(app);
  admin = await adminToken(app);
  await app.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '1000' }).expect(200);
  distributionKey = (await app.container.ledgerModule.bootstrap.ready()).keys.distribution.publicKey();
});

interface Input {
  path: string;
  query?: string;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

interface FuzzRoute {
  key: RouteKey;
  token: () => string | undefined;
  input: fc.Arbitrary<Input>;
  /** Inputs the route would rightly accept and act on: not sent (fc.pre). */
  accepted?: (input: Input) => boolean;
  /** The route only reads, or answers every valid request the same (send-reset): 2xx is fine. */
  mayAnswer2xx?: boolean;
  /** Money could move: balances are compared after every case, not only after the run. */
  moneyRoute?: boolean;
  /** Cases always run first (built after the users exist). */
  examples?: () => Input[];
}

const uuid = fc.uuid();
const publicKey = fc.constant(null).map(() => Keypair.random().publicKey());
const jsonOf = (body: string | undefined): unknown => {
  try {
    return body === undefined ? undefined : JSON.parse(body);
  } catch {
    return undefined;
  }
};
const bodyInput = (path: string, body: fc.Arbitrary<string>, extra: Partial<Record<'headers', fc.Arbitrary<Record<string, string>>>> = {}) =>
  fc.record({ path: fc.constant(path), body, contentType, headers: extra.headers ?? fc.constant({}) });
const withPath = (template: (segment: string) => string, segment: fc.Arbitrary<string>, query?: fc.Arbitrary<string>) =>
  fc.record({ path: segment.map(template), query: query ?? fc.constant(undefined) }).map((i) => (i.query === undefined ? { path: i.path } : i));
const idempotencyHeader = fc.option(badIdempotencyKey, { nil: undefined }).map((k): Record<string, string> => (k === undefined ? {} : { 'Idempotency-Key': k }));
const pagination = ['limit', 'offset'];
const json = (value: unknown) => JSON.stringify(value);

const ROUTES: FuzzRoute[] = [
  {
    key: 'POST /api/users/signup',
    token: () => undefined,
    // Base: alice's username and e-mail, so one changed field still collides (400 duplicate).
    input: fc.constant(null).chain(() =>
      bodyInput('/api/users/signup', mutatedBody({ username: alice.username, email: alice.email, password: 'password-123', firstName: 'A', lastName: 'B' })),
    ),
    accepted: ({ body }) => {
      const parsed = signupBody.safeParse(jsonOf(body));
      return parsed.success && parsed.data.username.toLowerCase() !== alice.username.toLowerCase() && parsed.data.email !== alice.email;
    },
    examples: () => [
      { path: '/api/users/signup', body: json({ username: alice.username.toUpperCase(), email: 'other@example.com', password: 'password-123', firstName: 'A', lastName: 'B' }), contentType: 'application/json' },
      ...fieldExamples('/api/users/signup', { username: alice.username, email: alice.email, password: 'password-123', firstName: 'A', lastName: 'B' }),
    ],
  },
  {
    key: 'POST /api/users/login',
    token: () => undefined,
    input: fc.constant(null).chain(() => bodyInput('/api/users/login', mutatedBody({ identifier: alice.username, password: 'wrong-password' }))),
    accepted: ({ body }) => (jsonOf(body) as { password?: unknown } | undefined)?.password === alice.password,
    examples: () => [
      { path: '/api/users/login', body: json({ identifier: ` ${alice.email.toUpperCase()} `, password: 'wrong-password' }), contentType: 'application/json' },
      ...fieldExamples('/api/users/login', { identifier: alice.username, password: 'wrong-password' }),
    ],
  },
  {
    key: 'POST /api/users/send-reset-password-email',
    token: () => undefined,
    // Unknown address: answered 200 like a known one (no enumeration), and nothing is written.
    input: bodyInput('/api/users/send-reset-password-email', mutatedBody({ email: 'nobody@example.com' })),
    accepted: ({ body }) => {
      const email = (jsonOf(body) as { email?: unknown } | undefined)?.email;
      return typeof email === 'string' && [alice.email, bob.email].includes(email.trim().toLowerCase());
    },
    examples: () => fieldExamples('/api/users/send-reset-password-email', { email: 'nobody@example.com' }),
    mayAnswer2xx: true,
  },
  {
    key: 'POST /api/users/reset-password',
    token: () => undefined,
    // A correctly signed reset token whose id was never issued: it reaches the database and is refused.
    input: fc.constant(null).chain(() =>
      bodyInput('/api/users/reset-password', mutatedBody({ token: app.container.tokens.issueReset(alice.userId).token, newPassword: 'new-password-1' }, { token: fc.constant(json(forgedReset())) })),
    ),
    examples: () => [
      { path: '/api/users/reset-password', body: json({ token: app.container.tokens.issueReset(alice.userId).token, newPassword: 'new-password-1' }), contentType: 'application/json' },
      ...fieldExamples('/api/users/reset-password', { token: app.container.tokens.issueReset(alice.userId).token, newPassword: 'new-password-1' }),
    ],
  },
  {
    key: 'POST /api/admin/login',
    token: () => undefined,
    input: bodyInput('/api/admin/login', mutatedBody({ email: ADMIN.email, password: 'wrong-password', otp: '123456' })),
    accepted: ({ body }) => (jsonOf(body) as { password?: unknown } | undefined)?.password === ADMIN.password,
    examples: () => fieldExamples('/api/admin/login', { email: ADMIN.email, password: 'wrong-password', otp: '123456' }),
  },
  {
    key: 'POST /api/admin/mfa/setup',
    token: () => admin,
    // The wrong password: the service refuses it (403) and nothing is enrolled.
    input: bodyInput('/api/admin/mfa/setup', mutatedBody({ password: 'wrong-password' })),
    accepted: ({ body }) => (jsonOf(body) as { password?: unknown } | undefined)?.password === ADMIN.password,
    examples: () => fieldExamples('/api/admin/mfa/setup', { password: 'wrong-password' }),
  },
  {
    key: 'POST /api/admin/mfa/confirm',
    token: () => admin,
    // Nothing to confirm: a well-formed code reaches the service, which refuses it (409).
    input: bodyInput('/api/admin/mfa/confirm', mutatedBody({ otp: '123456' })),
    examples: () => [{ path: '/api/admin/mfa/confirm', body: json({ otp: '123456' }), contentType: 'application/json' }, ...fieldExamples('/api/admin/mfa/confirm', { otp: '123456' })],
  },
  {
    key: 'POST /api/admin/provision',
    token: () => admin,
    input: bodyInput('/api/admin/provision', mutatedBody({ email: ADMIN.email, password: 'password-123' })),
    accepted: ({ body }) => {
      const parsed = provisionBody.safeParse(jsonOf(body));
      return parsed.success && parsed.data.email !== ADMIN.email;
    },
    examples: () => [
      { path: '/api/admin/provision', body: json({ email: ` ${ADMIN.email.toUpperCase()}`, password: 'password-123' }), contentType: 'application/json' },
      ...fieldExamples('/api/admin/provision', { email: ADMIN.email, password: 'password-123' }),
    ],
  },
  {
    key: 'GET /api/admin/users',
    token: () => admin,
    input: fc.record({ path: fc.constant('/api/admin/users'), query: evilQuery(pagination) }),
    mayAnswer2xx: true,
  },
  {
    key: 'PUT /api/admin/users/:userId',
    token: () => admin,
    input: fc
      .record({
        segment: evilSegment(fc.oneof(uuid, fc.constant(null).map(() => alice.userId))),
        body: mutatedBody({ firstName: 'Zed' }),
        contentType,
      })
      .map(({ segment, body, contentType: type }) => ({ path: `/api/admin/users/${segment}`, body, contentType: type })),
    // A valid change to a real user is a legitimate update, unless it collides with bob (409).
    accepted: ({ path, body }) => {
      if (![alice.userId, bob.userId].some((id) => path.endsWith(id))) return false;
      const parsed = updateUserBody.safeParse(jsonOf(body));
      if (!parsed.success) return false;
      const collides = parsed.data.username?.toLowerCase() === bob.username.toLowerCase() || parsed.data.email === bob.email;
      return !collides;
    },
    // Bob's username in other letter case, and his e-mail, given to alice: 409, nothing changes.
    examples: () => [
      { path: `/api/admin/users/${alice.userId}`, body: objectSource([['username', json(bob.username.toUpperCase())]]), contentType: 'application/json' },
      { path: `/api/admin/users/${alice.userId}`, body: objectSource([['email', json(` ${bob.email.toUpperCase()} `)]]), contentType: 'application/json' },
      // Colliding with bob, so that a poison the route let through would reach the database.
      ...fieldExamples(`/api/admin/users/${alice.userId}`, { username: bob.username.toUpperCase(), firstName: 'N', lastName: 'M' }),
    ],
  },
  {
    key: 'DELETE /api/admin/users/:userId',
    token: () => admin,
    input: withPath((s) => `/api/admin/users/${s}`, evilSegment(uuid)),
    examples: () => [{ path: `/api/admin/users/${crypto.randomUUID()}` }],
  },
  {
    key: 'GET /api/admin/transactions',
    token: () => admin,
    input: fc.record({ path: fc.constant('/api/admin/transactions'), query: evilQuery(pagination) }),
    mayAnswer2xx: true,
  },
  {
    key: 'GET /api/admin/users/:userId/transactions',
    token: () => admin,
    input: withPath((s) => `/api/admin/users/${s}/transactions`, evilSegment(fc.oneof(uuid, fc.constant(null).map(() => alice.userId))), evilQuery(pagination)),
    mayAnswer2xx: true,
  },
  {
    key: 'GET /api/admin/users/:userId/wallet',
    token: () => admin,
    input: withPath((s) => `/api/admin/users/${s}/wallet`, evilSegment(fc.oneof(uuid, fc.constant(null).map(() => bob.userId)))),
    mayAnswer2xx: true,
  },
  {
    key: 'GET /api/ledger/check-balance/:publicKey',
    token: () => alice.token,
    input: withPath((s) => `/api/ledger/check-balance/${s}`, evilSegment(fc.oneof(publicKey, fc.constant(null).map(() => bob.ledgerPublicKey)))),
    mayAnswer2xx: true,
  },
  {
    key: 'POST /api/ledger/transfer',
    token: () => alice.token,
    // Alice holds no tokens: a transfer that passes validation meets the ledger's op_underfunded,
    // a missing receiver (plain text), or her own wallet.
    input: fc.constant(null).chain(() =>
      bodyInput(
        '/api/ledger/transfer',
        mutatedBody(
          { receiverPublicKey: bob.ledgerPublicKey, amount: 1 },
          {
            amount: evilAmount,
            receiverPublicKey: fc.oneof(publicKey, fc.constantFrom(alice.ledgerPublicKey, distributionKey, Keypair.random().secret())).map(json),
          },
        ),
        { headers: idempotencyHeader },
      ),
    ),
    moneyRoute: true,
    examples: () => [
      ...[bob.ledgerPublicKey, Keypair.random().publicKey(), alice.ledgerPublicKey, distributionKey].map((receiver) => ({
        path: '/api/ledger/transfer',
        body: json({ receiverPublicKey: receiver, amount: '0.0000001' }),
        contentType: 'application/json',
      })),
      { path: '/api/ledger/transfer', body: json({ receiverPublicKey: bob.ledgerPublicKey, amount: '922337203685.4775807' }), contentType: 'application/json' },
      ...fieldExamples('/api/ledger/transfer', { receiverPublicKey: bob.ledgerPublicKey, amount: 1 }),
    ],
  },
  {
    key: 'GET /api/ledger/transactions/:userId',
    token: () => alice.token,
    input: withPath((s) => `/api/ledger/transactions/${s}`, evilSegment(fc.oneof(uuid, fc.constant(null).map(() => alice.userId))), evilQuery(pagination)),
    mayAnswer2xx: true,
  },
  {
    key: 'POST /api/ledger/create-asset',
    token: () => admin,
    input: bodyInput('/api/ledger/create-asset', mutatedBody({ assetCode: 'XYZ', amount: '10' }, { amount: evilAmount, assetCode: fc.constantFrom('"wlt"', '"WLT "', '"WLT\\u0000"', '"WL"', '"WLT"') })),
    // The right code with a valid amount issues tokens: that is the route working.
    accepted: ({ body }) => {
      const parsed = createAssetBody.safeParse(jsonOf(body));
      return parsed.success && parsed.data.assetCode === 'WLT';
    },
    moneyRoute: true,
    examples: () => [
      { path: '/api/ledger/create-asset', body: json({ assetCode: 'wlt', amount: '10' }), contentType: 'application/json' },
      ...fieldExamples('/api/ledger/create-asset', { assetCode: 'WLT', amount: '10' }),
    ],
  },
  {
    key: 'GET /api/ledger/check-admin-balance/:publicKey',
    token: () => admin,
    input: withPath((s) => `/api/ledger/check-admin-balance/${s}`, evilSegment(fc.oneof(publicKey, fc.constant(null).map(() => distributionKey)))),
    mayAnswer2xx: true,
  },
  {
    key: 'POST /api/payments/create-payment-intent',
    token: () => alice.token,
    input: bodyInput('/api/payments/create-payment-intent', mutatedBody({ amount: '0' }, { amount: fc.oneof(evilAmount, fc.constantFrom('99999999999.99', '"92233720368.55"', '100000000000')) })),
    // A payable amount opens a checkout; amounts whose tokens exceed the ledger maximum must not.
    accepted: ({ body }) => {
      const parsed = intentBody.safeParse(jsonOf(body));
      return parsed.success && parsed.data.amount * 10n * 10_000_000n / 100n <= 9_223_372_036_854_775_807n;
    },
    moneyRoute: true,
    examples: () => [
      { path: '/api/payments/create-payment-intent', body: json({ amount: 99999999999.99 }), contentType: 'application/json' },
      { path: '/api/payments/create-payment-intent', body: json({ amount: '92233720368.55' }), contentType: 'application/json' },
      ...fieldExamples('/api/payments/create-payment-intent', { amount: 25 }),
    ],
  },
  {
    key: 'POST /api/payments/verify-payment',
    token: () => alice.token,
    input: bodyInput('/api/payments/verify-payment', mutatedBody({ reference: `wlt-${crypto.randomUUID()}` }, { reference: uuid.map((u) => json(`wlt-${u}`)) })),
    moneyRoute: true,
    examples: () => [
      { path: '/api/payments/verify-payment', body: json({ reference: `wlt-${crypto.randomUUID()}` }), contentType: 'application/json' },
      ...fieldExamples('/api/payments/verify-payment', { reference: 'wlt-x' }),
    ],
  },
  {
    key: 'POST /api/payments/mint-tokens',
    token: () => admin,
    input: fc.constant(null).chain(() =>
      bodyInput('/api/payments/mint-tokens', mutatedBody({ userId: crypto.randomUUID(), amount: 1 }, { amount: evilAmount, userId: uuid.map(json) }), { headers: idempotencyHeader }),
    ),
    accepted: ({ body }) => {
      const parsed = mintBody.safeParse(jsonOf(body));
      return parsed.success && [alice.userId, bob.userId].includes(parsed.data.userId);
    },
    moneyRoute: true,
    examples: () => [
      { path: '/api/payments/mint-tokens', body: json({ userId: crypto.randomUUID(), amount: '0.0000001' }), contentType: 'application/json' },
      ...fieldExamples('/api/payments/mint-tokens', { userId: bob.userId, amount: 1 }),
    ],
  },
  {
    key: 'GET /api/payments/callback',
    token: () => undefined,
    // NUL in the reference included: it once reached the database and answered 500 (now a 400 page).
    input: fc.record({ path: fc.constant('/api/payments/callback'), query: evilQuery(['reference', 'trxref']) }),
    examples: () => [{ path: '/api/payments/callback', query: `trxref=wlt-${crypto.randomUUID()}` }],
    moneyRoute: true,
  },
  {
    key: 'POST /api/payments/webhook',
    token: () => undefined,
    input: fc
      .record({
        body: fc.oneof(evilJson, mutatedBody({ event: 'charge.success', data: { reference: 'wlt-unknown' } })),
        signing: fc.constantFrom('none', 'random', 'valid'),
      })
      .map(({ body, signing }): Input => ({
        path: '/api/payments/webhook',
        body,
        contentType: 'application/json',
        headers:
          signing === 'none' ? {} : { 'x-paystack-signature': signing === 'valid' ? signPaystackPayload(body, provider.secretKey) : crypto.randomBytes(64).toString('hex') },
      })),
    // A correctly signed event for an unknown reference is acknowledged (200) and changes nothing.
    mayAnswer2xx: true,
    moneyRoute: true,
  },
];

/** Strings that must never reach a service unrefused or crash one, tried in every field of a body. */
const FIELD_POISONS = ['a\u0000b', '\ud800', 'x\udc00y', '\u202eadmin', 'a\u200bb', ' ', 'x'.repeat(5000), '{"$gt":""}'];

/** One case per field of `base` per poison: deterministic coverage under the random search. */
function fieldExamples(path: string, base: Record<string, unknown>, headers: Record<string, string> = {}): Input[] {
  return Object.keys(base).flatMap((field) =>
    FIELD_POISONS.map((poison) => ({
      path,
      body: JSON.stringify({ ...base, [field]: poison }),
      contentType: 'application/json',
      headers,
    })),
  );
}

function forgedReset(): string {
  return jwt.sign({ purpose: 'password-reset' }, 'not-the-secret-but-long-enough-0123456789', { subject: alice.userId, jwtid: crypto.randomUUID(), expiresIn: 3600 });
}

async function balances(): Promise<Record<string, string | undefined>> {
  const [a, b, d] = await Promise.all([alice, bob].map((u) => ledgerBalance(ledger.url, u.ledgerPublicKey)).concat(ledgerBalance(ledger.url, distributionKey)));
  return { alice: a, bob: b, distribution: d };
}

async function send(route: FuzzRoute, input: Input): Promise<Response> {
  const method = route.key.slice(0, route.key.indexOf(' ')).toLowerCase() as 'get' | 'post' | 'put' | 'delete';
  let req = app.http[method](input.query === undefined ? input.path : `${input.path}?${input.query}`);
  const token = route.token();
  if (token) req = req.set(bearer(token));
  for (const [name, value] of Object.entries(input.headers ?? {})) req = req.set(name, value);
  if (input.body !== undefined) req = req.set('Content-Type', input.contentType ?? 'application/json').send(input.body);
  return req;
}

/** What is wrong with an answer, or undefined when it is one of the allowed ones. */
function answerProblem(route: FuzzRoute, res: Response): string | undefined {
  if (res.status >= 500) return `answered ${res.status}: ${res.text.slice(0, 300)}`;
  if (res.status < 400) return route.mayAnswer2xx && res.status >= 200 && res.status < 300 ? undefined : `answered ${res.status}`;
  const type = String(res.headers['content-type'] ?? '');
  if (route.key === 'GET /api/payments/callback') return /text\/html/.test(type) && /<html/.test(res.text) ? undefined : `callback answered ${type}`;
  if (route.key === 'POST /api/ledger/transfer' && /text\/plain/.test(type)) {
    return res.status === 400 && res.text === 'Receiver account does not exist on the ledger' ? undefined : `unexpected plain text ${res.status} ${res.text}`;
  }
  if (!/application\/json/.test(type)) return `answered ${res.status} as ${type}: ${res.text.slice(0, 200)}`;
  return shapeProblem(shapeOfGroup(route.key.slice(route.key.indexOf(' ') + 1)), res.body);
}

/** The database as a hash per table, but the admin log (whose rows each test checks by what they record). */
async function stateBesidesTheAdminLog(): Promise<Record<string, string>> {
  const state = await databaseState(app.container.database);
  delete state.admin_log;
  return state;
}

const seenStatuses: Record<string, Record<number, number>> = {};
/** What each route answered, as `status message`: shows which refusals came from the services. */
const outcomes: Record<string, Set<string>> = {};
const outcomeOf = (res: Response) => {
  const body = res.body as { error?: unknown; message?: unknown } | undefined;
  const text = /text\/plain/.test(String(res.headers['content-type'])) ? res.text : String(body?.error ?? body?.message ?? '');
  return `${res.status} ${text}`;
};

describe.each(ROUTES.map((r) => [r.key, r] as const))('%s under hostile input', (key, route) => {
  it('answers a 4xx in its group shape, never a 5xx, and changes nothing', async () => {
    const statuses: Record<number, number> = {};
    seenStatuses[key] = statuses;
    const answered = (outcomes[key] = new Set());
    const balancesBefore = await balances();
    await fc.assert(
      fc.asyncProperty(route.input, async (input) => {
        fc.pre(!(route.accepted?.(input) ?? false));
        const before = await stateBesidesTheAdminLog();
        const logged = await countRows(app.container.database, 'admin_log');
        const res = await send(route, input);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        answered.add(outcomeOf(res));
        const problem = answerProblem(route, res);
        if (problem) throw new Error(`${key} ${problem}`);
        expect(await stateBesidesTheAdminLog()).toEqual(before);
        // The admin log records refused credentials (a failed login or MFA step is an action) and wallet reads that went through: nothing else.
        const rows = await queryRows<{ action: string }>(app.container.database, sql`select action from admin_log order by seq offset ${logged}`);
        for (const { action } of rows) {
          expect({ key, status: res.status, action }).toEqual({ key, status: res.status, action: res.status < 300 ? 'wallet.secret_read' : expect.stringMatching(/^admin\.(login|mfa_setup|mfa_confirm)_failed$/) });
        }
        if (route.moneyRoute) expect(await balances()).toEqual(balancesBefore);
      }),
      { numRuns: RUNS, examples: (route.examples?.() ?? []).map((e) => [e]) },
    );
    expect(await balances()).toEqual(balancesBefore);
    // The run exercised the route: something was refused (not every case an early parse error).
    expect(Object.keys(statuses).some((s) => Number(s) >= 400)).toBe(true);
  });
});

describe('numbers at and past every limit', () => {
  const amountRoutes: { key: RouteKey; body: (amount: string) => string; token: () => string }[] = [
    { key: 'POST /api/ledger/transfer', body: (a) => objectSource([['receiverPublicKey', json(bob.ledgerPublicKey)], ['amount', a]]), token: () => alice.token },
    { key: 'POST /api/ledger/create-asset', body: (a) => objectSource([['assetCode', '"WLT"'], ['amount', a]]), token: () => admin },
    { key: 'POST /api/payments/mint-tokens', body: (a) => objectSource([['userId', json(bob.userId)], ['amount', a]]), token: () => admin },
    { key: 'POST /api/payments/create-payment-intent', body: (a) => objectSource([['amount', a]]), token: () => alice.token },
  ];
  const LIMITS = ['0', '-0', '-1', '1e-8', '0.00000001', '922337203685.4775808', '922337203685.4775807', '"922337203685.4775808"', '"NaN"', '"Infinity"', '1e308', '1e400', '-1e-400', '"-0"', 'null', '{"$gt":0}'];

  it.each(amountRoutes.map((r) => [r.key, r] as const))('%s refuses each with 400 in its shape, moving nothing', async (key, route) => {
    const before = await databaseState(app.container.database);
    const balancesBefore = await balances();
    const answers: Record<string, string> = {};
    for (const amount of LIMITS) {
      const res = await app.http
        .post(key.slice(key.indexOf(' ') + 1))
        .set(bearer(route.token()))
        .set('Content-Type', 'application/json')
        .send(route.body(amount));
      // Refused by validation itself (with details naming the amount), not later by the ledger.
      const detail = (res.body as { details?: { path: string }[] }).details?.[0]?.path;
      answers[amount] = `${res.status} ${detail}`;
      expect([amount, shapeProblem(shapeOfGroup(key.slice(key.indexOf(' ') + 1)), res.body)]).toEqual([amount, undefined]);
    }
    expect(answers).toEqual(Object.fromEntries(LIMITS.map((a) => [a, '400 body.amount'])));
    expect(await databaseState(app.container.database)).toEqual(before);
    expect(await balances()).toEqual(balancesBefore);
  });

  it('takes the largest amount exactly when it comes as a decimal string, and refuses it as a JSON number', async () => {
    const asNumber = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Content-Type', 'application/json').send(`{"receiverPublicKey":"${bob.ledgerPublicKey}","amount":922337203685.4775807}`);
    expect(asNumber.status).toBe(400);
    expect(asNumber.body.details[0].message).toMatch(/decimal string/);
    // As a string it passes validation and reaches the ledger, which finds alice has nothing.
    const asString = await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: '922337203685.4775807' });
    expect(asString.status).toBe(400);
    expect(asString.body).toEqual({ error: 'Insufficient balance' });
  });
});

describe('path and query escapes', () => {
  it('refuses broken percent-escapes in a path parameter with 400 in the group shape', async () => {
    for (const [path, token, shape] of [
      ['/api/admin/users/%ED%A0%80/wallet', admin, 'message'],
      ['/api/ledger/check-balance/%', alice.token, 'error'],
      [`/api/ledger/transactions/${percentEncode('\ud800')}`, alice.token, 'error'],
    ] as const) {
      const res = await app.http.get(path).set(bearer(token));
      expect(res.status).toBe(400);
      expect(shapeProblem(shape, res.body)).toBeUndefined();
    }
  });

  it('got valid-looking input past validation to the services and the ledger, which refused it', () => {
    expect(Object.keys(seenStatuses)).toHaveLength(ROUTES.length);
    const seen = (key: RouteKey) => [...(outcomes[key] ?? [])];
    expect(seen('POST /api/users/signup')).toContain('400 Email or username already exists');
    expect(seen('POST /api/users/login')).toContain('401 Invalid credentials');
    expect(seen('POST /api/users/reset-password')).toContain('403 Reset token invalid');
    expect(seen('POST /api/admin/provision')).toContain('409 An admin with this email already exists');
    expect(seen('POST /api/admin/mfa/setup')).toContain('403 Invalid password');
    expect(seen('POST /api/admin/mfa/confirm')).toContain('409 No MFA setup to confirm: POST /api/admin/mfa/setup first');
    expect(seen('PUT /api/admin/users/:userId')).toContain('409 Username or email already taken');
    expect(seen('DELETE /api/admin/users/:userId')).toContain('404 User not found');
    expect(seen('POST /api/ledger/transfer')).toEqual(
      expect.arrayContaining(['400 Insufficient balance', '400 Receiver account does not exist on the ledger', '400 Receiver is your own wallet']),
    );
    expect(seen('POST /api/ledger/create-asset')).toContain('400 assetCode must be WLT');
    expect(seen('POST /api/payments/create-payment-intent').some((o) => /^400 Amount is too large/.test(o))).toBe(true);
    expect(seen('POST /api/payments/verify-payment')).toContain('404 Payment reference not found');
    expect(seen('POST /api/payments/mint-tokens')).toContain('404 User not found');
    expect(seen('GET /api/payments/callback')).toContain('404 ');
  });
});

// Keeps the evil arbitraries honest: they do produce the strings the header comment promises.
describe('the generators', () => {
  it('produce NUL, unpaired surrogates, RTL, zero-width characters and prototype keys', () => {
    const strings = fc.sample(evilString, { numRuns: 2000, seed: 42 });
    expect(strings.some((s) => s.includes('\u0000'))).toBe(true);
    expect(strings.some((s) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s))).toBe(true);
    expect(strings.some((s) => s.includes('\u202e'))).toBe(true);
    expect(strings.some((s) => s.includes('\u200b'))).toBe(true);
    const bodies = fc.sample(evilJson, { numRuns: 2000, seed: 42 });
    expect(bodies.some((b) => b.includes('"__proto__":'))).toBe(true);
    expect(bodies.some((b) => b.includes('"$gt"'))).toBe(true);
    expect(() => bodies.forEach((b) => JSON.parse(b))).not.toThrow();
    expect(fc.sample(evilAmount, { numRuns: 200, seed: 1 }).length).toBe(200);
  });
});
