import crypto from 'node:crypto';
import { Keypair } from '@stellar/stellar-sdk';
import { adminToken, bearer, createUser, type CreatedUser } from '../helpers/factories';
import { sql } from 'drizzle-orm';
import { countRows, databaseState, queryRows } from '../helpers/database-state';
import { type ForgedTokens, forgeTokens } from '../helpers/forged-tokens';
import { appRoutes, shapeOfGroup, shapeProblem, tableRoutes, type ExpectedAccess, type RouteKey } from '../helpers/route-inventory';
import { withSandboxes } from '../helpers/with-sandboxes';

/**
 * Every route the application serves, and who may call it. Written out by hand on purpose: a
 * route added to a route table or to app.ts without a row here fails the first test, and a
 * change of a route's access fails the second. CONTRACT 3 decides the roles.
 */
const EXPECTED: Record<RouteKey, { access: ExpectedAccess; params?: Record<string, 'user' | 'unknown'>; setupToken?: true }> = {
  'POST /api/users/signup': { access: 'public' },
  'POST /api/users/login': { access: 'public' },
  'GET /api/users/profile': { access: 'user' },
  'GET /api/users/events': { access: 'user' },
  'POST /api/users/send-reset-password-email': { access: 'public' },
  'POST /api/users/reset-password': { access: 'public' },

  'POST /api/admin/login': { access: 'public' },
  'POST /api/admin/provision': { access: 'admin' },
  'GET /api/admin/users': { access: 'admin' },
  'PUT /api/admin/users/:userId': { access: 'admin' },
  // An accepted admin token must not delete the matrix's own user: an unknown id answers 404.
  'DELETE /api/admin/users/:userId': { access: 'admin', params: { userId: 'unknown' } },
  'GET /api/admin/transactions': { access: 'admin' },
  'GET /api/admin/users/:userId/transactions': { access: 'admin' },
  'GET /api/admin/payments': { access: 'admin' },
  'POST /api/admin/webhook-endpoints': { access: 'admin' },
  'GET /api/admin/webhook-endpoints': { access: 'admin' },
  'DELETE /api/admin/webhook-endpoints/:id': { access: 'admin' },
  'POST /api/admin/webhook-endpoints/:id/rotate-secret': { access: 'admin' },
  'POST /api/admin/webhook-endpoints/:id/replay': { access: 'admin' },
  'GET /api/admin/webhook-endpoints/:id/deliveries': { access: 'admin' },
  'GET /api/admin/audit-log': { access: 'admin' },
  'GET /api/admin/users/:userId/wallet': { access: 'admin' },
  // Admin MFA enrolment: the only routes a setup-only admin token (ADMIN_MFA_REQUIRED) reaches.
  'POST /api/admin/mfa/setup': { access: 'admin', setupToken: true },
  'POST /api/admin/mfa/confirm': { access: 'admin', setupToken: true },
  'GET /api/admin/withdrawals': { access: 'admin' },
  'POST /api/admin/withdrawals/:id/finalize': { access: 'admin' },
  'POST /api/admin/withdrawals/:id/cancel': { access: 'admin' },
  // Two people for money creation (CONTRACT 11). ':id' as written: an accepted token meets validation (400).
  'GET /api/admin/approvals': { access: 'admin' },
  'POST /api/admin/approvals/:id/approve': { access: 'admin' },
  'POST /api/admin/approvals/:id/reject': { access: 'admin' },

  'GET /api/ledger/check-balance/:publicKey': { access: 'any' },
  'POST /api/ledger/transfer': { access: 'user' },
  'GET /api/ledger/transactions/:userId': { access: 'user' },
  'POST /api/ledger/create-asset': { access: 'admin' },
  'GET /api/ledger/check-admin-balance/:publicKey': { access: 'admin' },

  'POST /api/payments/create-payment-intent': { access: 'user' },
  'POST /api/payments/verify-payment': { access: 'any' },
  'POST /api/payments/mint-tokens': { access: 'admin' },
  'GET /api/payments/callback': { access: 'public' },
  // Cash-out (CONTRACT 10). ':id' stays as written: an accepted token meets validation (400), so nothing is changed.
  'GET /api/payments/banks': { access: 'user' },
  'POST /api/payments/payout-accounts': { access: 'user' },
  'GET /api/payments/payout-accounts': { access: 'user' },
  'DELETE /api/payments/payout-accounts/:id': { access: 'user' },
  'POST /api/payments/withdrawals': { access: 'user' },
  'GET /api/payments/withdrawals': { access: 'user' },
  'GET /api/payments/withdrawals/:id': { access: 'user' },
  // Outside the route tables (app.ts): Paystack's signed webhook, probes, the reset page.
  'POST /api/payments/webhook': { access: 'signature' },
  'GET /healthz': { access: 'public' },
  'GET /readyz': { access: 'public' },
  'GET /reset-password': { access: 'public' },
  'GET /assets/reset-password.js': { access: 'public' },
  // The API documentation (generated from the route tables) and Prometheus metrics, public by
  // design: the README says to restrict /metrics at the proxy.
  'GET /openapi.json': { access: 'public' },
  'GET /docs': { access: 'public' },
  'GET /docs/:file': { access: 'public' },
  'GET /metrics': { access: 'public' },
};

function expectation(key: RouteKey) {
  const row = EXPECTED[key];
  if (!row) throw new Error(`no expectation for ${key}`);
  return row;
}

type Credential = keyof ForgedTokens | 'none' | 'deletedUser' | 'user' | 'admin' | 'setupOnly';
const REFUSED_401: Credential[] = ['none', 'garbage', 'wrongSignature', 'algNone', 'expired', 'otherAlgorithm', 'tamperedRole', 'resetToken', 'deletedUser'];

const { app } = withSandboxes({ app: { scope: 'file' } });
let user: CreatedUser;
let admin: string;
let deletedUserToken: string;
let forged: ForgedTokens;
/** The admin's token as ADMIN_MFA_REQUIRED issues it before MFA is on: it may only set MFA up. */
let setupOnly: string;

beforeAll(async () => {
  user = await createUser(app);
  admin = await adminToken(app);
  const doomed = await createUser(app);
  deletedUserToken = doomed.token;
  await app.http.delete(`/api/admin/users/${doomed.userId}`).set(bearer(admin)).expect(200);
  forged = forgeTokens(user.userId, user.token, app.container.tokens.issueReset(user.userId).token);
  const adminId = (JSON.parse(Buffer.from(admin.split('.')[1]!, 'base64url').toString('utf8')) as { sub: string }).sub;
  setupOnly = app.container.tokens.issueAccess(adminId, 'admin', 'mfa-setup');
});

function tokenFor(credential: Credential): string | undefined {
  switch (credential) {
    case 'none':
      return undefined;
    case 'user':
      return user.token;
    case 'admin':
      return admin;
    case 'deletedUser':
      return deletedUserToken;
    case 'setupOnly':
      return setupOnly;
    default:
      return forged[credential];
  }
}

/** The route's path with its parameters filled: the matrix user's id and key, or an unknown id. */
function concretePath(key: RouteKey): string {
  const path = key.slice(key.indexOf(' ') + 1);
  const overrides = expectation(key).params ?? {};
  return path
    .replace(':userId', overrides.userId === 'unknown' ? crypto.randomUUID() : user.userId)
    .replace(':publicKey', overrides.publicKey === 'unknown' ? Keypair.random().publicKey() : user.ledgerPublicKey);
}

function call(key: RouteKey, credential: Credential) {
  const method = key.slice(0, key.indexOf(' ')).toLowerCase() as 'get' | 'post' | 'put' | 'delete';
  let req = app.http[method](concretePath(key));
  const token = tokenFor(credential);
  if (token !== undefined) req = req.set(bearer(token));
  // An empty body: an accepted token meets validation (400), so nothing is ever changed.
  return method === 'get' || method === 'delete' ? req : req.send({});
}

describe('the route inventory', () => {
  it('names exactly the routes the application serves (a new route needs a row here)', () => {
    expect(appRoutes(app.container.app)).toEqual(Object.keys(EXPECTED).sort());
  });

  it("agrees with every route table's declared access", () => {
    const declared = tableRoutes(app.container.routeGroups).map((r) => [r.key, r.def.access, r.def.acceptsScope === 'mfa-setup']);
    expect(declared).toEqual(declared.map(([key]) => [key, EXPECTED[key as RouteKey]?.access, EXPECTED[key as RouteKey]?.setupToken === true]));
    expect(declared.length).toBeGreaterThanOrEqual(22);
  });
});

const protectedRoutes = (Object.keys(EXPECTED) as RouteKey[]).filter((k) => ['user', 'admin', 'any'].includes(expectation(k).access));

describe.each(protectedRoutes)('%s', (key) => {
  const access = expectation(key).access;
  const shape = shapeOfGroup(key.slice(key.indexOf(' ') + 1));

  it(`answers 401 in the group's shape to ${REFUSED_401.join(', ')}`, async () => {
    const statuses: Record<string, number> = {};
    for (const credential of REFUSED_401) {
      const res = await call(key, credential);
      statuses[credential] = res.status;
      expect([credential, shapeProblem(shape, res.body)]).toEqual([credential, undefined]);
    }
    expect(statuses).toEqual(Object.fromEntries(REFUSED_401.map((c) => [c, 401])));
  });

  it(`lets ${access === 'any' ? 'both roles' : `only the ${access} role`} through; the other role gets 403`, async () => {
    const expected = { user: access === 'admin' ? 403 : 'accepted', admin: access === 'user' ? 403 : 'accepted' };
    const seen: Record<string, number | string> = {};
    for (const credential of ['user', 'admin'] as const) {
      const res = await call(key, credential);
      if (res.status === 403 && expected[credential] === 403) {
        expect(shapeProblem(shape, res.body)).toBeUndefined();
        expect(JSON.stringify(res.body)).toMatch(/not allowed/i);
      }
      // Accepted: whatever the route answers to an empty request, but never an auth refusal nor a 5xx.
      seen[credential] = res.status === 401 || res.status === 403 || res.status >= 500 ? res.status : 'accepted';
    }
    expect(seen).toEqual(expected);
  });
});

describe('a setup-only admin token (ADMIN_MFA_REQUIRED, before MFA is on)', () => {
  it('is refused 403 in the group shape on every protected route but the MFA setup routes, which take it', async () => {
    const seen: Record<string, number | string> = {};
    for (const key of protectedRoutes) {
      const res = await call(key, 'setupOnly');
      if (res.status === 403) {
        expect([key, shapeProblem(shapeOfGroup(key.slice(key.indexOf(' ') + 1)), res.body)]).toEqual([key, undefined]);
        // A user route refuses any admin token for its role; the others say what the token is for.
        expect([key, JSON.stringify(res.body)]).toEqual([key, expect.stringMatching(expectation(key).access === 'user' ? /not allowed/i : /MFA must be set up first/)]);
      }
      seen[key] = res.status === 401 || res.status === 403 || res.status >= 500 ? res.status : 'accepted';
    }
    expect(seen).toEqual(Object.fromEntries(protectedRoutes.map((k) => [k, expectation(k).setupToken ? 'accepted' : 403])));
  });
});

describe('public routes', () => {
  const publicRoutes = (Object.keys(EXPECTED) as RouteKey[]).filter((k) => expectation(k).access === 'public');

  it.each(publicRoutes)('%s answers without a token, and a bad token changes nothing', async (key) => {
    const anonymous = await call(key, 'none');
    const garbage = await call(key, 'garbage');
    expect([anonymous.status, garbage.status]).not.toContain(401);
    expect([anonymous.status, garbage.status]).not.toContain(403);
    expect(anonymous.status).toBeLessThan(500);
    expect(garbage.status).toBe(anonymous.status);
  });
});

describe('POST /api/payments/webhook', () => {
  it('ignores bearer tokens and refuses anything without a valid provider signature (401 in the payments shape)', async () => {
    const body = JSON.stringify({ event: 'charge.success', data: { reference: 'wlt-none' } });
    for (const headers of [{}, bearer(admin), { 'x-paystack-signature': 'f'.repeat(128) }, { 'x-paystack-signature': 'not-hex' }]) {
      const res = await app.http.post('/api/payments/webhook').set('Content-Type', 'application/json').set(headers).send(body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ success: false, message: 'Invalid signature' });
    }
  });
});

describe('the whole matrix', () => {
  it('changed nothing in the database: refused and empty requests write no row', async () => {
    // But the admin log: an admin's read of a wallet's secret, which an empty request can be, is recorded.
    const withoutLog = async () => {
      const state = await databaseState(app.container.database);
      delete state.admin_log;
      return state;
    };
    const loggedBefore = await countRows(app.container.database, 'admin_log');
    const before = await withoutLog();
    for (const key of protectedRoutes) for (const credential of [...REFUSED_401, 'user', 'admin', 'setupOnly'] as Credential[]) await call(key, credential);
    expect(await withoutLog()).toEqual(before);
    const logged = await queryRows<{ action: string }>(app.container.database, sql`select action from admin_log order by seq offset ${loggedBefore}`);
    expect(new Set(logged.map((r) => r.action))).toEqual(new Set(logged.length > 0 ? ['wallet.secret_read'] : []));
  });
});
