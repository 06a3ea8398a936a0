import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Database } from '../client';
import { mailOutbox, users } from '../schema';
import { claimDueRows, msFromNow } from './leased-claims';

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
    const claim = { dueAt: mailOutbox.nextAttemptAt, waiting: eq(mailOutbox.status, 'pending'), alsoSet: sql`attempts = attempts + 1` };
    const ids = await claimDueRows(this.db, mailOutbox, claim, limit, leaseMs);
    if (ids.length === 0) return [];
    return this.db
      .select({ id: mailOutbox.id, kind: mailOutbox.kind, attempts: mailOutbox.attempts, userId: mailOutbox.userId, email: users.email, firstName: users.firstName })
      .from(mailOutbox)
      .innerJoin(users, eq(users.id, mailOutbox.userId))
      .where(inArray(mailOutbox.id, ids));
  }

  async markSent(id: string): Promise<void> {
    await this.db.update(mailOutbox).set({ status: 'sent', sentAt: new Date(), lastError: null }).where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'pending')));
  }

  async setAside(id: string, reason: string): Promise<void> {
    await this.db.update(mailOutbox).set({ status: 'failed', lastError: reason }).where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'pending')));
  }

  async retryLater(id: string, delayMs: number, reason: string): Promise<void> {
    await this.db
      .update(mailOutbox)
      .set({ lastError: reason, nextAttemptAt: msFromNow(delayMs) })
      .where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'pending')));
  }
}
