import { sql } from 'drizzle-orm';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { createUser } from '../helpers/factories';
import { countRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { freePort } from '../helpers/ports';
import { startTestApp, type TestApp } from '../helpers/test-app';

/**
 * A real SMTP server on `port`; `refuse` makes it turn every connection away (421 at the greeting).
 * `refused` counts the connections it turned away. A message is in `messages` once parsed, which is
 * before the server answers 250: the sender learns of its success (and records it) only after.
 */
async function smtpOn(port: number, options: { refuse?: boolean } = {}): Promise<{ messages: ParsedMail[]; refused: () => number; close(): Promise<void> }> {
  const messages: ParsedMail[] = [];
  let refused = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      if (options.refuse) refused++;
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
  return { messages, refused: () => refused, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let app: TestApp;
afterEach(async () => {
  await app.close();
});

describe('the mail server down, refusing, then back', () => {
  it('answers 200 to known and unknown addresses alike, keeps no token nobody received, and delivers a working link once mail is back', async () => {
    const port = await freePort();
    app = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${port}?starttls=off`, MAIL_RETRY_BASE_MS: '200' }, 'warn');
    // The worker as the container runs it (container.start), polling often. Between phases it is
    // stopped, which waits for the attempt in flight: an attempt records its token before it
    // connects and discards it after a refusal, so only a quiet worker shows what is left.
    const worker = app.container.mailOutbox;
    worker.start(100);
    const alice = await createUser(app);
    const request = (email: string) => app.http.post('/api/users/send-reset-password-email').send({ email });
    const outbox = async (status: string) => {
      const rows = await app.container.database.db.execute<{ n: string }>(sql`select count(*)::text as n from mail_outbox where status = ${status}`);
      return Number((Array.isArray(rows) ? rows : (rows as { rows: { n: string }[] }).rows)[0]!.n);
    };
    const failedAttempts = () => app.logs.filter((l) => l.includes('mail not sent, retrying later')).length;

    // Nothing listening: the same answer for the account and for nobody.
    const known = await request(alice.email);
    const unknown = await request('nobody@example.com');
    expect([known.status, unknown.status]).toEqual([200, 200]);
    expect(known.body).toEqual(unknown.body);
    expect(known.headers['retry-after']).toBeUndefined();
    expect(await outbox('pending')).toBe(1);
    await eventually(async () => (failedAttempts() > 0 ? true : undefined), 'a failed attempt');
    await worker.stop();
    expect(await countRows(app.container.database, 'password_reset_tokens')).toBe(0);

    // A server that turns every connection away: still nothing sent, no live token.
    const refusing = await smtpOn(port, { refuse: true });
    try {
      worker.start(100);
      await request(alice.email).expect(200);
      await eventually(async () => (refusing.refused() > 0 ? true : undefined), 'a connection turned away');
      await worker.stop();
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

    // Mail is back on the same address: the worker retries the queued message (one, although it
    // was asked for twice) and its link works. Sent is what the worker records once the server has
    // taken the message; the message shows in `messages` a moment before that (found on a busy
    // machine: reading the outbox as soon as the message arrived found it not yet marked sent).
    const smtp = await smtpOn(port);
    try {
      worker.start(100);
      await eventually(async () => ((await outbox('sent')) === 1 ? true : undefined), 'the reset e-mail to be sent');
      expect(await outbox('pending')).toBe(0);
      expect(smtp.messages).toHaveLength(1);
      const mail = smtp.messages[0]!;
      const token = decodeURIComponent(/token=([^\s"<]+)/.exec(mail.text ?? '')![1]!);
      expect(await countRows(app.container.database, 'password_reset_tokens')).toBe(1);
      await app.http.post('/api/users/reset-password').send({ token, newPassword: 'after-outage-pw-1' }).expect(200);
      await app.http.post('/api/users/login').send({ identifier: alice.email, password: 'after-outage-pw-1' }).expect(200);
      expect(app.logs.join('')).not.toContain(token);
    } finally {
      await smtp.close();
    }
  });
});
