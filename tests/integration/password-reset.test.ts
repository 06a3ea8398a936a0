import { sql } from 'drizzle-orm';
import jwt from 'jsonwebtoken';
import fs from 'node:fs';
import path from 'node:path';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { createUser } from '../helpers/factories';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../helpers/test-app';

let app: TestApp;
let smtp: TestSmtp;

beforeAll(async () => {
  smtp = await startTestSmtp();
});
afterAll(async () => {
  await smtp.close();
});
beforeEach(async () => {
  app = await startTestApp({ SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'http://wallet.test' });
});
afterEach(async () => {
  await app.close();
});

function tokenFromLink(text: string): string {
  const match = /http:\/\/wallet\.test\/reset-password\?token=([^\s]+)/.exec(text);
  if (!match) throw new Error('no reset link in the e-mail');
  return decodeURIComponent(match[1]!);
}

async function pendingMail(): Promise<number> {
  const rows = await queryRows<{ n: string }>(app.container.database, sql`select count(*)::text as n from mail_outbox where status = 'pending'`);
  return Number(rows[0]!.n);
}

async function requestResetToken(email: string): Promise<string> {
  await app.http.post('/api/users/send-reset-password-email').send({ email }).expect(200);
  const mail = await smtp.nextMessage();
  expect(mail.to && 'text' in mail.to ? mail.to.text : '').toContain(email);
  return tokenFromLink(mail.text ?? '');
}

describe('password reset by e-mail', () => {
  it('mails a link to the SMTP server whose token resets the password once', async () => {
    const user = await createUser(app);
    const token = await requestResetToken(user.email);
    const claims = jwt.verify(token, TEST_JWT_SECRET) as jwt.JwtPayload;
    expect(claims.exp! - claims.iat!).toBe(3600);

    await app.http.post('/api/users/reset-password').send({ token, newPassword: 'brand-new-pass' }).expect(200, {
      message: 'Password has been reset successfully',
    });
    await app.http.post('/api/users/login').send({ identifier: user.email, password: 'brand-new-pass' }).expect(200);
    await app.http.post('/api/users/login').send({ identifier: user.email, password: user.password }).expect(401);

    const again = await app.http.post('/api/users/reset-password').send({ token, newPassword: 'another-pass-1' });
    expect(again.status).toBe(403);
    expect(again.body).toEqual({ error: 'Reset token invalid' });
  });

  it('answers the same for an unknown address and sends nothing', async () => {
    const user = await createUser(app);
    const known = await app.http.post('/api/users/send-reset-password-email').send({ email: user.email });
    await smtp.nextMessage();
    const before = smtp.messages.length;
    const unknown = await app.http.post('/api/users/send-reset-password-email').send({ email: 'nobody@example.com' });
    expect(unknown.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
    // Nothing was queued for the unknown address, and the mail worker, run to the end, sent nothing more.
    await app.container.mailOutbox.run();
    expect(await queryRows(app.container.database, sql`select status from mail_outbox`)).toEqual([{ status: 'sent' }]);
    expect(smtp.messages.length).toBe(before);
  });

  it('answers an expired token with 401 {error}', async () => {
    const user = await createUser(app);
    const expired = jwt.sign({ purpose: 'password-reset' }, TEST_JWT_SECRET, {
      algorithm: 'HS256',
      subject: user.userId,
      jwtid: '00000000-0000-4000-8000-000000000000',
      expiresIn: -10,
    });
    const res = await app.http.post('/api/users/reset-password').send({ token: expired, newPassword: 'brand-new-pass' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Reset token expired' });
  });

  it.each([
    ['garbage', 'not-a-jwt'],
    ['a wrong signature', jwt.sign({ purpose: 'password-reset' }, 'x'.repeat(40), { subject: '00000000-0000-4000-8000-000000000000', jwtid: '00000000-0000-4000-8000-000000000001' })],
    ['a token never issued', jwt.sign({ purpose: 'password-reset' }, TEST_JWT_SECRET, { subject: '00000000-0000-4000-8000-000000000000', jwtid: '00000000-0000-4000-8000-000000000001' })],
  ])('answers %s with 403 {error}', async (_name, token) => {
    const res = await app.http.post('/api/users/reset-password').send({ token, newPassword: 'brand-new-pass' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'Reset token invalid' });
  });

  it('rejects a login access token as a reset token', async () => {
    const user = await createUser(app);
    const res = await app.http.post('/api/users/reset-password').send({ token: user.token, newPassword: 'brand-new-pass' });
    expect(res.status).toBe(403);
  });

  it('voids an older link once the password changed through a newer one', async () => {
    const user = await createUser(app);
    const first = await requestResetToken(user.email);
    const second = await requestResetToken(user.email);
    await app.http.post('/api/users/reset-password').send({ token: second, newPassword: 'brand-new-pass' }).expect(200);
    expect((await app.http.post('/api/users/reset-password').send({ token: first, newPassword: 'other-pass-12' })).status).toBe(403);
  });

  it('mails a fresh link for a request made while the previous e-mail is still on its way', async () => {
    // CI (Node 22, a loaded machine) waited out its patience in the test above: the second request
    // came after the SMTP server had the first mail but before the worker heard it accepted and
    // marked it sent, so the request folded into a mail whose link was already written, and no
    // second e-mail ever came. Here the server holds its acceptance to make that order certain.
    const user = await createUser(app);
    const before = smtp.messages.length;
    const release = smtp.holdAcceptance();
    let first: string;
    try {
      await app.http.post('/api/users/send-reset-password-email').send({ email: user.email }).expect(200);
      first = tokenFromLink((await smtp.nextMessage()).text ?? '');
      await app.http.post('/api/users/send-reset-password-email').send({ email: user.email }).expect(200);
    } finally {
      release();
    }
    // Whatever the outbox holds goes out: nothing left pending means no e-mail is still to come.
    await eventually(async () => ((await pendingMail()) === 0 ? true : undefined), 'the outbox to send everything queued');
    expect(smtp.messages.slice(before).map((m) => (m.to && 'text' in m.to ? m.to.text : ''))).toEqual([user.email, user.email]);
    const second = tokenFromLink((await smtp.nextMessage()).text ?? '');

    expect(second).not.toBe(first);
    await app.http.post('/api/users/reset-password').send({ token: second, newPassword: 'brand-new-pass' }).expect(200);
    expect((await app.http.post('/api/users/reset-password').send({ token: first, newPassword: 'other-pass-12' })).status).toBe(403);
  });

  it('lets only one of two concurrent resets with one token succeed', async () => {
    const user = await createUser(app);
    const token = await requestResetToken(user.email);
    const results = await Promise.all([
      app.http.post('/api/users/reset-password').send({ token, newPassword: 'first-pass-123' }),
      app.http.post('/api/users/reset-password').send({ token, newPassword: 'second-pass-123' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 403]);
  });

  it('validates the new password and changes nothing on a bad one', async () => {
    const user = await createUser(app);
    const token = await requestResetToken(user.email);
    const res = await app.http.post('/api/users/reset-password').send({ token, newPassword: 'short' });
    expect(res.status).toBe(400);
    expect(res.body.details[0].path).toBe('body.newPassword');
    await app.http.post('/api/users/reset-password').send({ token, newPassword: 'long-enough-now' }).expect(200);
  });

  it('answers the same 200 when the mail server is down (the mail waits in the outbox)', async () => {
    await app.close();
    app = await startTestApp({ SMTP_URL: 'smtp://127.0.0.1:1?starttls=off' });
    const user = await createUser(app);
    const known = await app.http.post('/api/users/send-reset-password-email').send({ email: user.email });
    const unknown = await app.http.post('/api/users/send-reset-password-email').send({ email: 'nobody@example.com' });
    expect([known.status, unknown.status]).toEqual([200, 200]);
    expect(known.body).toEqual(unknown.body);
  });
});

describe('development outbox', () => {
  it('writes the e-mail as an .eml file in DATA_DIR/outbox when no SMTP server is configured', async () => {
    await app.close();
    app = await startTestApp({ PUBLIC_BASE_URL: 'http://wallet.test' });
    const user = await createUser(app);
    await app.http.post('/api/users/send-reset-password-email').send({ email: user.email }).expect(200);
    const outbox = path.join(app.dataDir, 'outbox');
    // The mail worker writes it just after the answer.
    const messages = () => (fs.existsSync(outbox) ? fs.readdirSync(outbox).filter((f) => f.endsWith('.eml')) : []);
    const files = await eventually(async () => (messages().length > 0 ? messages() : undefined), 'the .eml file');
    expect(files).toHaveLength(1);
    const eml = fs.readFileSync(path.join(outbox, files[0]!), 'utf8');
    expect(eml).toContain('Subject: Reset your wallet password');
    expect(eml).toContain('http://wallet.test/reset-password?token=');
  });
});

describe('GET /reset-password', () => {
  it('serves the reset form without echoing the token into the page', async () => {
    const res = await app.http.get('/reset-password?token=%3Cscript%3Ealert(1)%3C%2Fscript%3E').expect(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('<form id="reset-form">');
    expect(res.text).not.toContain('alert(1)');
    await app.http.get('/assets/reset-password.js').expect(200).expect('Content-Type', /javascript/);
  });
});
