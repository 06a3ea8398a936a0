import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { createUser } from '../helpers/factories';
import { closedPort, countRows, until } from '../helpers/hardening';
import { startTestApp, type TestApp } from '../helpers/test-app';

jest.setTimeout(30_000);

/** A real SMTP server on `port`; `refuse` makes it turn every connection away (421 at the greeting). */
async function smtpOn(port: number, options: { refuse?: boolean } = {}): Promise<{ messages: ParsedMail[]; close(): Promise<void> }> {
  const messages: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      callback(options.refuse ? Object.assign(new Error('Service not available'), { responseCode: 421 }) : undefined);
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          messages.push(mail);
          callback();
        })
        .catch((err: Error) => callback(err));
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { messages, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let app: TestApp;
afterEach(async () => {
  await app.close();
});

describe('the mail server down, refusing, then back', () => {
  it('answers 503 {error} to a reset request, keeps no token nobody received, and delivers a working link once mail is back', async () => {
    const port = await closedPort();
    app = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}?starttls=off` }, 'warn');
    const alice = await createUser(app);
    const request = () => app.http.post('/api/users/send-reset-password-email').send({ email: alice.email });

    // Nothing listening.
    const down = await request();
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: 'Mail service unavailable, try again later' });
    expect(down.headers['retry-after']).toBe('5');
    expect(await countRows(app.container.database, 'password_reset_tokens')).toBe(0);

    // A server that turns every connection away.
    const refusing = await smtpOn(port, { refuse: true });
    try {
      const refused = await request();
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ error: 'Mail service unavailable, try again later' });
      expect(refusing.messages).toHaveLength(0);
      expect(await countRows(app.container.database, 'password_reset_tokens')).toBe(0);
    } finally {
      await refusing.close();
    }
    // The failures are logged without the link (a reset link is a credential).
    expect(app.logs.join('')).toContain('mail delivery failed');
    expect(app.logs.join('')).not.toMatch(/token=/);
    // The account is untouched.
    await app.http.post('/api/users/login').send({ identifier: alice.email, password: alice.password }).expect(200);

    // Mail is back on the same address: the same app, not rebuilt, delivers a link that works.
    const smtp = await smtpOn(port);
    try {
      await request().expect(200);
      const mail = await until(async () => smtp.messages[0], 'the reset e-mail');
      expect(smtp.messages).toHaveLength(1);
      const token = decodeURIComponent(/token=([^\s"<]+)/.exec(mail.text ?? '')![1]!);
      expect(await countRows(app.container.database, 'password_reset_tokens')).toBe(1);
      await app.http.post('/api/users/reset-password').send({ token, newPassword: 'after-outage-pw-1' }).expect(200);
      await app.http.post('/api/users/login').send({ identifier: alice.email, password: 'after-outage-pw-1' }).expect(200);
    } finally {
      await smtp.close();
    }
  });
});
