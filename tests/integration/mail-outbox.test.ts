import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { MailOutboxRepository } from '../../src/db/repositories/mail-outbox.repository';
import { queryRows } from '../helpers/database-state';
import { eventually } from '../helpers/eventually';
import { createUser, type CreatedUser } from '../helpers/factories';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';
import { startTestApp, type TestApp } from '../helpers/test-app';

let smtp: TestSmtp;
let app: TestApp;
let other: TestApp | undefined;

beforeAll(async () => {
  smtp = await startTestSmtp();
});
afterAll(async () => {
  await smtp.close();
});
beforeEach(async () => {
  smtp.messages.length = 0;
  app = await startTestApp({ SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'http://wallet.test' });
});
afterEach(async () => {
  await other?.close();
  other = undefined;
  await app.close();
});

const recipients = () => smtp.messages.map((m) => (m.to && 'text' in m.to ? m.to.text : ''));

async function statuses(target: TestApp): Promise<Record<string, number>> {
  const rows = await queryRows<{ status: string; n: string }>(target.container.database, sql`select status, count(*)::text as n from mail_outbox group by status`);
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

describe('the mail outbox', () => {
  it('never sends one message twice when two processes run the worker at once', async () => {
    other = await startTestApp({ SMTP_URL: smtp.url, PUBLIC_BASE_URL: 'http://wallet.test' }, 'silent', { reset: false });
    const users: CreatedUser[] = [];
    for (let i = 0; i < 12; i++) users.push(await createUser(app));
    const outbox = new MailOutboxRepository(app.container.database.db);
    for (const user of users) await outbox.queuePasswordReset(user.email);

    const workers = [app, other, app, other].map((a) => a.container.mailOutbox);
    await Promise.all(workers.map((w) => w.run()));
    await Promise.all(workers.map((w) => w.run()));

    await eventually(async () => (smtp.messages.length >= users.length ? true : undefined), 'every message');
    // Every worker run to the end: a send in flight (the duplicate this looks for) has reached the
    // SMTP server by then, since a send ends when the server has taken the message.
    await Promise.all(workers.map((w) => w.run()));
    expect(recipients().sort()).toEqual(users.map((u) => u.email).sort());
    expect(await statuses(app)).toEqual({ sent: users.length });
  });

  it('folds a request into a message not yet claimed, and gives a request made after the claim a message of its own', async () => {
    const user = await createUser(app);
    const outbox = new MailOutboxRepository(app.container.database.db);
    const claim = async () => {
      const due = await outbox.claimDue(10, 60_000);
      expect(due).toHaveLength(1);
      return due[0]!.id;
    };

    // Two requests before any worker looked: one message, whose link will answer both.
    await outbox.queuePasswordReset(user.email);
    await outbox.queuePasswordReset(user.email);
    expect(await statuses(app)).toEqual({ pending: 1 });

    // Claimed (its link being written), then asked again: sent, and the later request queued anew.
    const first = await claim();
    await outbox.queuePasswordReset(user.email);
    expect(await statuses(app)).toEqual({ pending: 1 });
    await outbox.markSent(first);
    expect(await statuses(app)).toEqual({ sent: 1, pending: 1 });

    // A message set aside after its last attempt does not take a request made during it along.
    const second = await claim();
    await outbox.queuePasswordReset(user.email);
    await outbox.setAside(second, 'mail server refused it');
    expect(await statuses(app)).toEqual({ sent: 1, failed: 1, pending: 1 });

    // Nobody asked again while the third was sent: nothing more is queued.
    await outbox.markSent(await claim());
    expect(await statuses(app)).toEqual({ sent: 2, failed: 1 });
  });

  it('answers known and unknown addresses alike without waiting for the mail server, and the mail goes out after', async () => {
    // Before the outbox, a known address waited for the SMTP conversation (and answered later than
    // an unknown one, telling them apart). Here the mail server greets no connection until the test
    // lets it: had an answer waited for the conversation, it could not have come first.
    const held = await heldSmtp();
    try {
      other = await startTestApp({ SMTP_URL: held.url, PUBLIC_BASE_URL: 'http://wallet.test', MAIL_RETRY_BASE_MS: '200' }, 'warn', { reset: false });
      const users: CreatedUser[] = [];
      for (let i = 0; i < 4; i++) users.push(await createUser(other));
      const ask = (email: string) => other!.http.post('/api/users/send-reset-password-email').send({ email });

      for (const user of users) {
        const [known, unknown] = [await ask(user.email), await ask(`nobody_${user.username}@example.com`)];
        expect([known.status, unknown.status]).toEqual([200, 200]);
        expect(known.body).toEqual(unknown.body);
      }

      // Every answer came while the mail server had greeted nobody: no message taken, none failed.
      expect(held.messages).toHaveLength(0);
      expect(other.logs.join('')).not.toContain('mail not sent');
      expect(await statuses(other)).toEqual({ pending: users.length });
      // The worker has begun the conversation the answers did not wait for.
      await eventually(async () => (held.waiting() > 0 ? true : undefined), 'the worker to connect to the mail server');
      held.greet();
      await eventually(async () => ((await statuses(other!)).sent === users.length ? true : undefined), 'the reset e-mails to be sent');
      expect(held.messages.map((m) => (m.to && 'text' in m.to ? m.to.text : '')).sort()).toEqual(users.map((u) => u.email).sort());
    } finally {
      await held.close();
    }
  });
});

/**
 * A real SMTP server that holds every connection before its greeting until greet() is called, and
 * greets at once after. A client that gives up waiting (nodemailer's greeting timeout) has sent no
 * message, so nothing can arrive twice.
 */
async function heldSmtp(): Promise<{ url: string; messages: ParsedMail[]; waiting(): number; greet(): void; close(): Promise<void> }> {
  const messages: ParsedMail[] = [];
  let greeted = false;
  const waiting: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      if (greeted) callback();
      else waiting.push(() => callback());
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}?starttls=off`,
    messages,
    waiting: () => waiting.length,
    greet() {
      greeted = true;
      waiting.splice(0).forEach((go) => go());
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
