import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { TOTP, URI } from 'otpauth';
import { signPaystackPayload } from '@wallet/paystack-sandbox';
import { adminToken, bearer, createUser } from '../helpers/factories';
import { startLedgerSandbox, startPaystackSandbox } from '../helpers/sandboxes';
import { startTestSmtp } from '../helpers/smtp';
import { OTPAUTH_URI, RECOVERY_CODE_SHAPE, stellarSeedsIn } from '../helpers/secret-patterns';
import { startTestApp } from '../helpers/test-app';

const JWT = /eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}/;
const BCRYPT_HASH = /\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}/;

/**
 * A user failing at the database mid-signup: a trigger refuses usernames starting `dbfault`, as a
 * broken disk or a constraint would. Only those rows, so a shared test database is not disturbed.
 */
const INSTALL_FAULT = [
  `create or replace function hardening_refuse_user() returns trigger language plpgsql as $$
   begin
     if new.username like 'dbfault%' then raise exception 'simulated storage failure'; end if;
     return new;
   end $$`,
  'drop trigger if exists hardening_refuse_user on users',
  'create trigger hardening_refuse_user before insert on users for each row execute function hardening_refuse_user()',
];
const REMOVE_FAULT = ['drop trigger if exists hardening_refuse_user on users', 'drop function if exists hardening_refuse_user()'];

describe('logs at trace level across every route group', () => {
  it('never contain a secret key, a password or its hash, a JWT, a reset token, the provider key, a webhook signature, a TOTP secret or a recovery code', async () => {
    const smtp = await startTestSmtp();
    const ledger = await startLedgerSandbox();
    const provider = await startPaystackSandbox();
    const app = await startTestApp({ ...ledger.env, ...provider.env, SMTP_URL: smtp.url }, 'trace');
    const db = app.container.database.db;
    const secrets: string[] = [provider.secretKey];
    try {
      // Users: signup, logins (good and bad), profile, the whole reset flow.
      const alice = await createUser(app, { password: 'alice-secret-pw-1' });
      const bob = await createUser(app, { password: 'bob-secret-pw-2' });
      secrets.push(alice.password, bob.password, alice.token, bob.token);
      await app.http.post('/api/users/login').send({ identifier: alice.email, password: 'wrong-secret-pw-3' }).expect(401);
      secrets.push('wrong-secret-pw-3');
      const profile = await app.http.get('/api/users/profile').set(bearer(alice.token)).expect(200);
      secrets.push(profile.body.ledgerSecretKey as string);
      await app.http.post('/api/users/send-reset-password-email').send({ email: bob.email }).expect(200);
      const resetToken = decodeURIComponent(/token=([^\s"<]+)/.exec((await smtp.nextMessage()).text ?? '')![1]!);
      secrets.push(resetToken);
      await app.http.get(`/reset-password?token=${encodeURIComponent(resetToken)}`).expect(200);
      await app.http.post('/api/users/reset-password').send({ token: resetToken, newPassword: 'bob-new-secret-4' }).expect(200);
      await app.http.post('/api/users/reset-password').send({ token: resetToken, newPassword: 'bob-other-secret-5' }).expect(403);
      secrets.push('bob-new-secret-4', 'bob-other-secret-5');

      // Admin: login (good and bad), provision, a user's wallet keys.
      const admin = await adminToken(app);
      secrets.push(admin);
      await app.http.post('/api/admin/login').send({ email: 'root@example.com', password: 'wrong-admin-secret-6' }).expect(401);
      await app.http.post('/api/admin/provision').set(bearer(admin)).send({ email: 'second@example.com', password: 'provisioned-secret-7' }).expect(201);
      secrets.push('wrong-admin-secret-6', 'provisioned-secret-7');
      const wallet = await app.http.get(`/api/admin/users/${bob.userId}/wallet`).set(bearer(admin)).expect(200);
      secrets.push(wallet.body.ledgerSecretKey as string);

      // Admin MFA, for the provisioned admin: setup, confirm, a login with a code, one with a
      // recovery code, the same recovery code refused. (The codes themselves are six digits, too
      // short to look for in a log of timestamps: what must not leak is the secret they come from.)
      const second = { email: 'second@example.com', password: 'provisioned-secret-7' };
      const secondToken = (await app.http.post('/api/admin/login').send(second).expect(200)).body.token as string;
      secrets.push(secondToken);
      const setup = await app.http.post('/api/admin/mfa/setup').set(bearer(secondToken)).send({ password: second.password }).expect(200);
      const totp = URI.parse(setup.body.otpauthUri as string) as TOTP;
      secrets.push(setup.body.otpauthUri as string, totp.secret.base32);
      const confirm = await app.http.post('/api/admin/mfa/confirm').set(bearer(secondToken)).send({ otp: totp.generate() }).expect(200);
      const recoveryCodes = confirm.body.recoveryCodes as string[];
      secrets.push(...recoveryCodes);
      await app.http.post('/api/admin/login').send({ ...second, otp: totp.generate({ timestamp: Date.now() + 30_000 }) }).expect(200);
      await app.http.post('/api/admin/login').send({ ...second, otp: recoveryCodes[0] }).expect(200);
      await app.http.post('/api/admin/login').send({ ...second, otp: recoveryCodes[0] }).expect(401);

      // Ledger: issue, mint, transfer (with an idempotency key, replayed), balances, lists, failures.
      await app.http.post('/api/ledger/create-asset').set(bearer(admin)).send({ assetCode: 'WLT', amount: '100' }).expect(200);
      await app.http.post('/api/payments/mint-tokens').set(bearer(admin)).send({ userId: alice.userId, amount: 10 }).expect(200);
      for (let i = 0; i < 2; i++) {
        await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).set('Idempotency-Key', 'log-test-1').send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1 }).expect(200);
      }
      await app.http.post('/api/ledger/transfer').set(bearer(alice.token)).send({ receiverPublicKey: bob.ledgerPublicKey, amount: 1000 }).expect(400);
      await app.http.get(`/api/ledger/check-balance/${alice.ledgerPublicKey}`).set(bearer(alice.token)).expect(200);
      await app.http.get(`/api/ledger/transactions/${alice.userId}`).set(bearer(alice.token)).expect(200);
      const { keys } = await app.container.ledgerModule.bootstrap.ready();
      secrets.push(keys.issuer.secret(), keys.distribution.secret());
      await app.http.get(`/api/ledger/check-admin-balance/${keys.distribution.publicKey()}`).set(bearer(admin)).expect(200);

      // Payments: intent, checkout at the provider, verify, callback, a signed webhook, a forged one.
      const intent = await app.http.post('/api/payments/create-payment-intent').set(bearer(alice.token)).send({ amount: 5 }).expect(200);
      const paid = await fetch(`${intent.body.authorization_url as string}/pay`, { method: 'POST', redirect: 'manual' });
      expect(paid.status).toBe(303);
      await app.http.post('/api/payments/verify-payment').set(bearer(alice.token)).send({ reference: intent.body.reference }).expect(200);
      await app.http.get(`/api/payments/callback?reference=${intent.body.reference as string}`).expect(200);
      const event = JSON.stringify({ event: 'charge.success', data: { reference: intent.body.reference, status: 'success', amount: 500, currency: 'NGN' } });
      const signature = signPaystackPayload(event, provider.secretKey);
      secrets.push(signature);
      await app.http.post('/api/payments/webhook').set('Content-Type', 'application/json').set('x-paystack-signature', signature).send(event).expect(200);
      await app.http.post('/api/payments/webhook').set('Content-Type', 'application/json').set('x-paystack-signature', crypto.randomBytes(64).toString('hex')).send(event).expect(401);

      // Failures that log error objects: malformed JSON carrying a password, and a database error mid-signup.
      await app.http.post('/api/users/login').set('Content-Type', 'application/json').send('{"password":"leaky-secret-8"').expect(400);
      secrets.push('leaky-secret-8');
      for (const statement of INSTALL_FAULT) await db.execute(sql.raw(statement));
      try {
        const failed = await app.http.post('/api/users/signup').send({ username: 'dbfault_one', email: 'dbfault@example.com', password: 'doomed-secret-9', firstName: 'D', lastName: 'F' });
        expect(failed.status).toBe(500);
        expect(failed.body).toEqual({ error: 'Internal server error' });
        secrets.push('doomed-secret-9');
      } finally {
        for (const statement of REMOVE_FAULT) await db.execute(sql.raw(statement));
      }
      // A deleted user's token, refused.
      await app.http.delete(`/api/admin/users/${bob.userId}`).set(bearer(admin)).expect(200);
      await app.http.get('/api/users/profile').set(bearer(bob.token)).expect(401);

      const logs = app.logs.join('');
      expect(app.logs.length).toBeGreaterThan(30);
      // The unhandled error was logged, with the failing query but not its values.
      expect(logs).toMatch(/"msg":"unhandled error"/);
      expect(logs).toContain('simulated storage failure');
      for (const secret of secrets) expect([secret.slice(0, 12), logs.includes(secret)]).toEqual([secret.slice(0, 12), false]);
      expect(stellarSeedsIn(logs)).toEqual([]);
      expect(logs).not.toMatch(JWT);
      expect(logs).not.toMatch(BCRYPT_HASH);
      expect(logs).not.toMatch(OTPAUTH_URI);
      expect(logs).not.toMatch(RECOVERY_CODE_SHAPE);
      // Every request line is there, by path only (query strings carry references and reset tokens).
      for (const path of ['/api/users/login', '/api/ledger/transfer', '/api/payments/verify-payment', '/api/payments/callback', '/api/admin/provision', '/api/admin/mfa/setup', '/api/admin/mfa/confirm']) {
        expect(logs).toContain(`"path":"${path}"`);
      }
    } finally {
      await app.close();
      await provider.stop();
      await ledger.stop();
      await smtp.close();
    }
  });
});
