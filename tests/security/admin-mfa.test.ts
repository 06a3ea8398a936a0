import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import jsQR from 'jsqr';
import { PNG } from 'pngjs';
import { sql } from 'drizzle-orm';
import { TOTP, URI } from 'otpauth';
import { AdminMfaRepository } from '../../src/db/repositories/admin-mfa.repository';
import { mfaSecretBinding } from '../../src/db/schema';
import { WalletCipher } from '../../src/security/wallet-cipher';
import { ARTIFACTS_DIR, launchBrowser, openPage } from '../helpers/browser';
import { queryRows, tableNames } from '../helpers/database-state';
import { bearer } from '../helpers/factories';
import { clearOfRateWindowEdge } from '../helpers/rate-window';
import { OTPAUTH_URI, RECOVERY_CODE_SHAPE } from '../helpers/secret-patterns';
import { startTestApp, TEST_WALLET_KEY, type TestApp } from '../helpers/test-app';

/**
 * Admin MFA through the API, on the real database: enrolment, the second factor of admin login
 * (a code once, one step of drift, recovery codes once, races), the setup-only token of
 * ADMIN_MFA_REQUIRED, the secret at rest, bad input. Codes are computed with otpauth from the
 * secret in the setup answer, at chosen times: the app checks them against a clock the test sets,
 * so no test waits for a 30-second step.
 */

const STEP_MS = 30_000;
const CIPHERTEXT = /^v1\.[A-Za-z0-9+/]{16}\.[A-Za-z0-9+/]{22}==\.[A-Za-z0-9+/=]{40,}$/;
const RECOVERY_CODE = /^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$/;

/** The clock the app checks codes against: set per test, mid-step. */
let clockMs = 0;
const atStep = (step: number) => step * STEP_MS + STEP_MS / 2;

interface Admin {
  id: string;
  email: string;
  password: string;
}

interface Enrolled extends Admin {
  totp: TOTP;
  uri: string;
  recoveryCodes: string[];
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({}, 'silent', { totpClock: () => clockMs });
});
afterAll(async () => {
  await app.close();
});
beforeEach(() => {
  clockMs = atStep(Math.floor(Date.now() / STEP_MS));
});

async function newAdmin(target: TestApp = app): Promise<Admin> {
  const tag = crypto.randomBytes(4).toString('hex');
  const admin = { email: `mfa_${tag}@example.com`, password: `pw-${tag}-admin` };
  const { adminId } = await target.container.admins.provision(admin.email, admin.password, { adminId: null });
  return { id: adminId, ...admin };
}

const login = (admin: Admin, otp?: string, target: TestApp = app) =>
  target.http.post('/api/admin/login').send(otp === undefined ? { email: admin.email, password: admin.password } : { email: admin.email, password: admin.password, otp });

async function tokenOf(admin: Admin, target: TestApp = app): Promise<string> {
  return (await login(admin, undefined, target).expect(200)).body.token as string;
}

/** The code of the admin's authenticator `steps` steps from the app's clock. */
const codeAt = (totp: TOTP, steps = 0) => totp.generate({ timestamp: clockMs + steps * STEP_MS });

/** Setup and confirm through the API, then the clock moves one step on (confirmation spent the step it was at). */
async function enrol(admin: Admin, target: TestApp = app, token?: string): Promise<Enrolled> {
  const bearerToken = token ?? (await tokenOf(admin, target));
  const setup = await target.http.post('/api/admin/mfa/setup').set(bearer(bearerToken)).send({ password: admin.password }).expect(200);
  const totp = URI.parse(setup.body.otpauthUri as string) as TOTP;
  const confirm = await target.http.post('/api/admin/mfa/confirm').set(bearer(bearerToken)).send({ otp: codeAt(totp) }).expect(200);
  clockMs += STEP_MS;
  return { ...admin, totp, uri: setup.body.otpauthUri as string, recoveryCodes: confirm.body.recoveryCodes as string[] };
}

describe('enrolment', () => {
  it('setup answers a TOTP URI and its QR code, uncached; confirm turns MFA on and answers ten recovery codes once', async () => {
    const admin = await newAdmin();
    const token = await tokenOf(admin);
    const setup = await app.http.post('/api/admin/mfa/setup').set(bearer(token)).send({ password: admin.password }).expect(200);
    expect(setup.headers['cache-control']).toBe('no-store');
    expect(Object.keys(setup.body).sort()).toEqual(['message', 'otpauthUri', 'qrSvg']);
    const totp = URI.parse(setup.body.otpauthUri as string) as TOTP;
    expect(totp).toBeInstanceOf(TOTP);
    expect({ algorithm: totp.algorithm, digits: totp.digits, period: totp.period, label: totp.label }).toEqual({ algorithm: 'SHA1', digits: 6, period: 30, label: admin.email });
    expect(totp.secret.bytes.length).toBe(20);
    expect(setup.body.qrSvg).toMatch(/^<svg [^>]*viewBox/);

    const confirm = await app.http.post('/api/admin/mfa/confirm').set(bearer(token)).send({ otp: codeAt(totp) }).expect(200);
    expect(confirm.headers['cache-control']).toBe('no-store');
    expect(Object.keys(confirm.body).sort()).toEqual(['message', 'recoveryCodes']);
    const codes = confirm.body.recoveryCodes as string[];
    expect(codes).toHaveLength(10);
    for (const code of codes) expect(code).toMatch(RECOVERY_CODE);
    expect(new Set(codes).size).toBe(10);

    // On: setup and confirm are refused (409 in the admin shape); the login needs the code.
    expect((await app.http.post('/api/admin/mfa/setup').set(bearer(token)).send({ password: admin.password })).body).toEqual({ message: 'MFA is already on for this account' });
    await app.http.post('/api/admin/mfa/setup').set(bearer(token)).send({ password: admin.password }).expect(409);
    await app.http.post('/api/admin/mfa/confirm').set(bearer(token)).send({ otp: codeAt(totp, 1) }).expect(409);
    // The confirming code's step is spent: it does not log in.
    expect((await login(admin, codeAt(totp))).status).toBe(401);
  });

  it('a second setup before confirming replaces the pending secret: the first one no longer confirms', async () => {
    const admin = await newAdmin();
    const token = await tokenOf(admin);
    const first = URI.parse((await app.http.post('/api/admin/mfa/setup').set(bearer(token)).send({ password: admin.password }).expect(200)).body.otpauthUri) as TOTP;
    const second = URI.parse((await app.http.post('/api/admin/mfa/setup').set(bearer(token)).send({ password: admin.password }).expect(200)).body.otpauthUri) as TOTP;
    expect(second.secret.base32).not.toBe(first.secret.base32);

    const stale = await app.http.post('/api/admin/mfa/confirm').set(bearer(token)).send({ otp: codeAt(first) });
    expect([stale.status, stale.body]).toEqual([400, { message: 'Invalid one-time code' }]);
    // Pending, MFA is not on yet: the password alone still logs in.
    await login(admin).expect(200);
    await app.http.post('/api/admin/mfa/confirm').set(bearer(token)).send({ otp: codeAt(second) }).expect(200);
    expect((await login(admin)).status).toBe(401);
  });

  it('a confirmation checked against a secret that a setup replaced meanwhile turns nothing on', async () => {
    // The race between confirm's read and its update, made step by step on the repository.
    const admin = await newAdmin();
    const repo = new AdminMfaRepository(app.container.database.db);
    const cipher = new WalletCipher(Buffer.from(TEST_WALLET_KEY, 'base64'));
    const seal = () => {
      const sealed = cipher.seal(crypto.randomBytes(20).toString('hex'), mfaSecretBinding(admin.id));
      return { secretCiphertext: sealed.ciphertext, keyId: sealed.keyId };
    };
    expect(await repo.startEnrolment(admin.id, seal())).toBe(true);
    const read = (await repo.find(admin.id))!;
    expect(await repo.startEnrolment(admin.id, seal())).toBe(true);
    expect(await app.container.database.db.transaction((tx) => repo.enable(tx, admin.id, read, 1))).toBe(false);
    expect((await mfaRows(admin.id))[0]!.enabled_at).toBeNull();
    // Once on, another setup replaces nothing.
    const current = (await repo.find(admin.id))!;
    expect(await app.container.database.db.transaction((tx) => repo.enable(tx, admin.id, current, 1))).toBe(true);
    expect(await repo.startEnrolment(admin.id, seal())).toBe(false);
    expect((await mfaRows(admin.id))[0]!.secret_ciphertext).toBe(current.secretCiphertext);
  });

  it('setup asks for the password again: a session alone cannot enrol an authenticator', async () => {
    const admin = await newAdmin();
    const token = await tokenOf(admin);
    const wrong = await app.http.post('/api/admin/mfa/setup').set(bearer(token)).send({ password: 'not-the-password' });
    expect([wrong.status, wrong.body]).toEqual([403, { message: 'Invalid password' }]);
    expect(await mfaRows(admin.id)).toEqual([]);
    const confirm = await app.http.post('/api/admin/mfa/confirm').set(bearer(token)).send({ otp: '123456' });
    expect([confirm.status, confirm.body.message]).toEqual([409, 'No MFA setup to confirm: POST /api/admin/mfa/setup first']);
  });
});

describe('admin login with MFA on', () => {
  it('without the code 401, a wrong code 401, with the code 200 (a full admin token); the same code again 401 inside its window', async () => {
    const admin = await enrol(await newAdmin());
    const missing = await login(admin);
    expect([missing.status, missing.body]).toEqual([401, { message: 'One-time code required' }]);
    const code = codeAt(admin.totp);
    const wrong = await login(admin, code === '000000' ? '000001' : '000000');
    expect([wrong.status, wrong.body]).toEqual([401, { message: 'Invalid one-time code' }]);

    const ok = await login(admin, code).expect(200);
    await app.http.get('/api/admin/users').set(bearer(ok.body.token as string)).expect(200);

    // The same code, at the same moment and later within its window: refused.
    const replay = await login(admin, code);
    expect([replay.status, replay.body]).toEqual([401, { message: 'Invalid one-time code' }]);
    clockMs += STEP_MS;
    expect((await login(admin, code)).status).toBe(401);
    // The wrong password still answers as before (401 Invalid credentials), code or not.
    expect((await app.http.post('/api/admin/login').send({ email: admin.email, password: 'wrong-password', otp: codeAt(admin.totp) })).body).toEqual({ message: 'Invalid credentials' });
  });

  it('allows one step of clock drift: a code from one step ago or ahead passes, from two steps ago it does not', async () => {
    const admin = await enrol(await newAdmin());
    clockMs += 2 * STEP_MS; // nothing used since the confirmation, two steps back

    expect((await login(admin, codeAt(admin.totp, -2))).status).toBe(401);
    await login(admin, codeAt(admin.totp, -1)).expect(200);
    await login(admin, codeAt(admin.totp, 0)).expect(200);
    await login(admin, codeAt(admin.totp, 1)).expect(200);
    expect((await login(admin, codeAt(admin.totp, 2))).status).toBe(401);
    // A code of a step before one already used never passes, even inside the window.
    clockMs += STEP_MS;
    expect((await login(admin, codeAt(admin.totp, -1))).status).toBe(401);
    await login(admin, codeAt(admin.totp, 1)).expect(200);
  });

  it('a recovery code logs in once, in any case and with or without dashes; a second use is 401; the others still work', async () => {
    const admin = await enrol(await newAdmin());
    const [first, second, third] = admin.recoveryCodes as [string, string, string];

    const ok = await login(admin, first).expect(200);
    await app.http.get('/api/admin/users').set(bearer(ok.body.token as string)).expect(200);
    const again = await login(admin, first);
    expect([again.status, again.body]).toEqual([401, { message: 'Invalid one-time code' }]);

    await login(admin, second.toLowerCase().replace(/-/g, '')).expect(200);
    expect((await login(admin, second)).status).toBe(401);
    // Another admin's code, and a well-formed code never issued: refused.
    const other = await enrol(await newAdmin());
    expect((await login(admin, other.recoveryCodes[0]!)).status).toBe(401);
    expect((await login(admin, 'AAAA-BBBB-CCCC-DDDD')).status).toBe(401);
    await login(admin, third).expect(200);
  });

  it('two logins racing with one code: exactly one gets a token; the same for a recovery code', async () => {
    const admin = await enrol(await newAdmin());
    const code = codeAt(admin.totp);
    const withCode = await Promise.all([login(admin, code), login(admin, code)]);
    expect(withCode.map((r) => r.status).sort()).toEqual([200, 401]);
    const withRecovery = await Promise.all([login(admin, admin.recoveryCodes[4]), login(admin, admin.recoveryCodes[4])]);
    expect(withRecovery.map((r) => r.status).sort()).toEqual([200, 401]);

    // Over HTTP the password check (bcrypt, on a pool of two threads) staggers the racers; checked
    // where the rule lives, twenty at once meet at the database together: one passes.
    clockMs += STEP_MS;
    const burst = async (otp: string) => {
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, () => app.container.adminMfa.secondFactor(admin.id, otp)));
      return outcomes.map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as Error).message)).sort();
    };
    expect(await burst(codeAt(admin.totp))).toEqual(['otp', ...Array<string>(19).fill('Invalid one-time code')].sort());
    expect(await burst(admin.recoveryCodes[5]!)).toEqual(['recovery-code', ...Array<string>(19).fill('Invalid one-time code')].sort());
  });

  it('refuses bad input with 400 or 401 in the admin shape, never a 5xx', async () => {
    const admin = await enrol(await newAdmin());
    const answers: Record<string, string> = {};
    const tries: [string, unknown][] = [
      ['five digits', '12345'],
      ['seven digits', '1234567'],
      ['letters', 'abcdef'],
      ['a number', 123456],
      ['empty', ''],
      ['null', null],
      ['overlong', '1'.repeat(5000)],
      ['NUL', '12\u000034'],
      ['a recovery code cut short', 'AAAA-BBBB-CCCC'],
      ['wrong six digits', codeAt(admin.totp) === '999999' ? '999998' : '999999'],
    ];
    for (const [what, otp] of tries) {
      const res = await app.http.post('/api/admin/login').send({ email: admin.email, password: admin.password, otp });
      answers[what] = `${res.status} ${shapeOf(res.body)}`;
    }
    expect(answers).toEqual({
      'five digits': '400 message',
      'seven digits': '400 message',
      letters: '400 message',
      'a number': '400 message',
      empty: '400 message',
      null: '400 message',
      overlong: '400 message',
      NUL: '400 message',
      'a recovery code cut short': '400 message',
      'wrong six digits': '401 message',
    });
    // An unknown field beside otp (the body is strict), and a body past 100 kB (413).
    expect((await app.http.post('/api/admin/login').send({ email: admin.email, password: admin.password, otp: codeAt(admin.totp), code: '1' })).status).toBe(400);
    const huge = await app.http.post('/api/admin/login').send({ email: admin.email, password: admin.password, otp: 'A'.repeat(200_000) });
    expect([huge.status, shapeOf(huge.body)]).toEqual([413, 'message']);

    const token = (await login(admin, codeAt(admin.totp)).expect(200)).body.token as string;
    for (const body of [{}, { otp: '12345' }, { otp: 'abcdef' }, { otp: admin.recoveryCodes[0] }, { otp: '123456', extra: 1 }, { otp: '1'.repeat(5000) }]) {
      const res = await app.http.post('/api/admin/mfa/confirm').set(bearer(token)).send(body);
      expect([JSON.stringify(body).slice(0, 40), res.status, shapeOf(res.body)]).toEqual([JSON.stringify(body).slice(0, 40), 400, 'message']);
    }
    for (const body of [{}, { password: '' }, { password: 'x'.repeat(2000) }, { password: 1 }, { password: admin.password, otp: '123456' }]) {
      const res = await app.http.post('/api/admin/mfa/setup').set(bearer(token)).send(body);
      expect([JSON.stringify(body).slice(0, 40), res.status, shapeOf(res.body)]).toEqual([JSON.stringify(body).slice(0, 40), 400, 'message']);
    }
  });
});

describe('the QR code', () => {
  it('decodes to the otpauth:// URI: rendered by the browser the suite uses, read back from the screenshot', async () => {
    const admin = await newAdmin();
    const setup = await app.http.post('/api/admin/mfa/setup').set(bearer(await tokenOf(admin))).send({ password: admin.password }).expect(200);
    const browser = await launchBrowser();
    try {
      const page = await openPage(browser);
      await page.setViewportSize({ width: 480, height: 480 });
      await page.setContent(`<!doctype html><html><body style="margin:0;background:#fff"><div style="padding:40px">${setup.body.qrSvg as string}</div></body></html>`);
      await page.locator('svg').evaluate((svg) => svg.setAttribute('style', 'display:block;width:400px;height:400px'));
      const png = await page.screenshot({ type: 'png' });
      fs.writeFileSync(path.join(ARTIFACTS_DIR, 'admin-mfa-qr.png'), png);
      const image = PNG.sync.read(png);
      const decoded = jsQR(new Uint8ClampedArray(image.data.buffer, image.data.byteOffset, image.data.length), image.width, image.height);
      expect(decoded?.data).toBe(setup.body.otpauthUri);
    } finally {
      await browser.close();
    }
  });
});

describe('the TOTP secret at rest', () => {
  it('is AES-256-GCM ciphertext under the configured key, bound to its admin; recovery codes are SHA-256 hashes; no table holds either in clear', async () => {
    const admin = await enrol(await newAdmin());
    const [row] = await mfaRows(admin.id);
    expect(row!.secret_ciphertext).toMatch(CIPHERTEXT);
    expect(row!.secret_ciphertext).not.toContain(admin.totp.secret.base32);
    const cipher = new WalletCipher(Buffer.from(TEST_WALLET_KEY, 'base64'));
    expect(row!.key_id).toBe(cipher.currentKeyId);
    expect(cipher.open({ ciphertext: row!.secret_ciphertext, keyId: row!.key_id }, mfaSecretBinding(admin.id))).toBe(admin.totp.secret.base32);
    // Copied onto another admin's row, it does not open.
    expect(() => cipher.open({ ciphertext: row!.secret_ciphertext, keyId: row!.key_id }, mfaSecretBinding(crypto.randomUUID()))).toThrow();

    const hashes = await queryRows<{ code_hash: string; used_at: string | null }>(app.container.database, sql`select code_hash, used_at from admin_recovery_codes where admin_id = ${admin.id}`);
    expect(hashes.map((h) => h.code_hash).sort()).toEqual(admin.recoveryCodes.map((c) => crypto.createHash('sha256').update(c.replace(/-/g, '')).digest('hex')).sort());

    const dump = (await Promise.all((await tableNames(app.container.database)).map(async (table) => (await queryRows<{ row: string }>(app.container.database, sql.raw(`select t::text as row from "${table}" t`))).map((r) => r.row)))).flat().join('\n');
    expect(dump).toContain(admin.id);
    expect(dump).not.toContain(admin.totp.secret.base32);
    expect(dump).not.toMatch(OTPAUTH_URI);
    expect(dump).not.toMatch(RECOVERY_CODE_SHAPE);
    for (const code of admin.recoveryCodes) expect(dump).not.toContain(code.replace(/-/g, ''));
  });
});

describe('ADMIN_MFA_REQUIRED', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await startTestApp({ ADMIN_MFA_REQUIRED: 'true' }, 'silent', { reset: false, totpClock: () => clockMs });
  });
  afterAll(async () => {
    await strict.close();
  });

  it('gives an admin without MFA a token that only sets MFA up (403 elsewhere); after confirming, the login with a code is a full admin', async () => {
    const admin = await newAdmin(strict);
    const setupOnly = await tokenOf(admin, strict);
    for (const [method, url] of [
      ['get', '/api/admin/users'],
      ['post', '/api/admin/provision'],
      ['get', `/api/admin/users/${crypto.randomUUID()}/wallet`],
      ['post', '/api/payments/mint-tokens'],
      ['post', '/api/ledger/create-asset'],
    ] as const) {
      const res = await strict.http[method](url).set(bearer(setupOnly)).send({});
      expect([url, res.status, shapeOf(res.body)]).toEqual([url, 403, url.startsWith('/api/admin') ? 'message' : expect.any(String)]);
      expect(JSON.stringify(res.body)).toMatch(/MFA must be set up first/);
    }

    const enrolled = await enrol(admin, strict, setupOnly);
    // Enrolled: the password alone is refused, the code gives a full token.
    expect((await login(enrolled, undefined, strict)).status).toBe(401);
    const full = (await login(enrolled, codeAt(enrolled.totp), strict).expect(200)).body.token as string;
    await strict.http.get('/api/admin/users').set(bearer(full)).expect(200);
    // The setup-only token stays what it was.
    await strict.http.get('/api/admin/users').set(bearer(setupOnly)).expect(403);
  });

  it('is off by default outside production: the same admin logs in to a full token (the spec behaviour)', async () => {
    const admin = await newAdmin();
    await app.http.get('/api/admin/users').set(bearer(await tokenOf(admin))).expect(200);
  });
});

describe('rate limits', () => {
  it('count login codes with the admin login, and setup and confirm each as a credential route (429 in the admin shape)', async () => {
    await clearOfRateWindowEdge();
    const limited = await startTestApp({ AUTH_RATE_LIMIT: '2' }, 'silent', { reset: false, totpClock: () => clockMs });
    try {
      const admin = await newAdmin(limited);
      const token = (await login(admin, undefined, limited).expect(200)).body.token as string;
      const setup = () => limited.http.post('/api/admin/mfa/setup').set(bearer(token)).send({ password: 'wrong' });
      expect([(await setup()).status, (await setup()).status]).toEqual([403, 403]);
      const third = await setup();
      expect([third.status, third.body]).toEqual([429, { message: 'Too many requests, try again later' }]);
      const confirm = () => limited.http.post('/api/admin/mfa/confirm').set(bearer(token)).send({ otp: '123456' });
      expect([(await confirm()).status, (await confirm()).status, (await confirm()).status]).toEqual([409, 409, 429]);
      // The login route's one count covers every code tried on it: one login already made, one more, then refused.
      expect((await login(admin, undefined, limited)).status).toBe(200);
      expect((await login(admin, '123456', limited)).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

async function mfaRows(adminId: string) {
  return queryRows<{ secret_ciphertext: string; key_id: string; enabled_at: string | null; last_used_step: string | null }>(
    app.container.database,
    sql`select secret_ciphertext, key_id, enabled_at, last_used_step from admin_mfa where admin_id = ${adminId}`,
  );
}

/** 'message' when the body is the admin group's `{message, details?}`; otherwise what it is. */
function shapeOf(body: unknown): string {
  if (typeof body !== 'object' || body === null) return `not an object: ${JSON.stringify(body)}`;
  const keys = Object.keys(body).filter((k) => k !== 'details');
  return keys.length === 1 && typeof (body as { message?: unknown }).message === 'string' ? 'message' : JSON.stringify(body);
}
