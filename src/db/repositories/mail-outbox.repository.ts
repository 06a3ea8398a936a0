import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
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
   * the account is not queued twice: the request folds into it and marks it requested again. Its
   * link is written when a worker claims it, so a request folded in after the claim is answered
   * by a message of its own once this one is done (see settle).
   */
  async queuePasswordReset(email: string): Promise<void> {
    await this.db.execute(sql`
      insert into mail_outbox (kind, user_id)
      select 'password-reset', id from users where email = ${email}
      on conflict (user_id, kind) where status = 'pending' do update set requested_again = true`);
  }

  /**
   * Messages due, leased to the caller until `leaseMs` from now (FOR UPDATE SKIP LOCKED: another
   * process skips them, and takes them only once the lease has passed). The claim clears
   * requested_again: the attempt about to start writes a link that answers every request so far.
   */
  async claimDue(limit: number, leaseMs: number): Promise<DueMail[]> {
    const alsoSet = sql`attempts = attempts + 1, requested_again = false`;
    const claim = { dueAt: mailOutbox.nextAttemptAt, waiting: eq(mailOutbox.status, 'pending'), alsoSet };
    const ids = await claimDueRows(this.db, mailOutbox, claim, limit, leaseMs);
    if (ids.length === 0) return [];
    return this.db
      .select({ id: mailOutbox.id, kind: mailOutbox.kind, attempts: mailOutbox.attempts, userId: mailOutbox.userId, email: users.email, firstName: users.firstName })
      .from(mailOutbox)
      .innerJoin(users, eq(users.id, mailOutbox.userId))
      .where(inArray(mailOutbox.id, ids));
  }

  async markSent(id: string): Promise<void> {
    await this.settle(id, sql`status = 'sent', sent_at = now(), last_error = null`);
  }

  async setAside(id: string, reason: string): Promise<void> {
    await this.settle(id, sql`status = 'failed', last_error = ${reason}`);
  }

  async retryLater(id: string, delayMs: number, reason: string): Promise<void> {
    await this.db
      .update(mailOutbox)
      .set({ lastError: reason, nextAttemptAt: msFromNow(delayMs) })
      .where(and(eq(mailOutbox.id, id), eq(mailOutbox.status, 'pending')));
  }

  /**
   * Ends a message's time as pending. A request folded into it after its claim (requested_again)
   * is answered by none of its links, so a new pending message is queued for it by the same
   * statement: a request racing with this one folds either into the old message while it still
   * holds its row (and is read here) or into the new one.
   */
  private async settle(id: string, outcome: SQL): Promise<void> {
    await this.db.execute(sql`
      with settled as (
        update mail_outbox set ${outcome} where id = ${id} and status = 'pending'
        returning kind, user_id, requested_again)
      insert into mail_outbox (kind, user_id)
      select kind, user_id from settled where requested_again`);
  }
}
