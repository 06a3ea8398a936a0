import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../client';
import { mailOutbox, users } from '../schema';
import { rowsOf } from './journal.repository';

export interface DueMail {
  id: string;
  kind: 'password-reset';
  attempts: number;
  userId: string;
  email: string;
  firstName: string;
}

/** Mail waiting to be sent (src/db/schema.ts mailOutbox). */
export class MailOutboxRepository {
  constructor(private readonly db: Database) {}

  /**
   * Queues a reset e-mail for the account with this address, if there is one, in one statement:
   * known and unknown addresses cost the same single round trip. A message already pending for
   * the account is not queued twice.
   */
  async queuePasswordReset(email: string): Promise<void> {
    await this.db.execute(sql`
      insert into mail_outbox (kind, user_id)
      select 'password-reset', id from users where email = ${email}
      on conflict (user_id, kind) where status = 'pending' do nothing`);
  }

  /**
   * Messages due, leased to the caller until `leaseMs` from now (FOR UPDATE SKIP LOCKED: another
   * process skips them, and takes them only once the lease has passed).
   */
  async claimDue(limit: number, leaseMs: number): Promise<DueMail[]> {
    const claimed = await this.db.execute<{ id: string }>(sql`
      update mail_outbox set next_attempt_at = now() + ${`${leaseMs} milliseconds`}::interval, attempts = attempts + 1
      where id in (
        select id from mail_outbox where status = 'pending' and next_attempt_at <= now()
        order by next_attempt_at limit ${limit} for update skip locked)
      returning id`);
    const ids = rowsOf<{ id: string }>(claimed).map((r) => r.id);
    if (ids.length === 0) return [];
    return this.db
      .select({ id: mailOutbox.id, kind: mailOutbox.kind, attempts: mailOutbox.attempts, userId: mailOutbox.userId, email: users.email, firstName: users.firstName })
      .from(mailOutbox)
      .innerJoin(users, eq(users.id, mailOutbox.userId))
      .where(sql`${mailOutbox.id} in (${sql.join(ids.map((id) => sql`${id}::uuid`), sql`, `)})`);
  }

  async markSent(id: string): Promise<void> {
    await this.db.update(mailOutbox).set({ status: 'sent', sentAt: new Date(), lastError: null }).where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'pending')));
  }

  async markFailed(id: string, reason: string): Promise<void> {
    await this.db.update(mailOutbox).set({ status: 'failed', lastError: reason }).where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'pending')));
  }

  async retryLater(id: string, delayMs: number, reason: string): Promise<void> {
    await this.db
      .update(mailOutbox)
      .set({ lastError: reason, nextAttemptAt: sql`now() + ${`${delayMs} milliseconds`}::interval` })
      .where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'pending')));
  }
}
