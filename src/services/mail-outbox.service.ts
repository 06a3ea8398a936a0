import type { Mailer } from '../clients/mailer';
import type { DueMail, MailOutboxRepository } from '../db/repositories/mail-outbox.repository';
import type { PasswordResetRepository } from '../db/repositories/password-reset.repository';
import { errorReason } from '../errors/loggable-error';
import type { Logger } from '../logger';
import type { TokenService } from '../security/tokens';
import { BackgroundWorker } from '../workers/background-worker';
import { resetPasswordEmail } from '../views/reset-password-email';

export interface MailOutboxOptions {
  publicBaseUrl: string;
  /**
   * A claim on a message lasts this long; another process may take it after. Longer than the
   * mailer's worst case (its SMTP timeouts), so a message is never sent by two processes.
   */
  leaseMs: number;
  /** First retry delay; doubles per attempt up to maxDelayMs. */
  retryBaseMs: number;
  maxDelayMs: number;
  /** Attempts before a message is set aside as failed (a reset link is useless after its hour anyway). */
  maxAttempts: number;
}

/**
 * Sends the queued mail (src/db/schema.ts mailOutbox) with retries, from any number of processes.
 * A reset e-mail's token is issued and recorded when the message is sent, and forgotten again if
 * the mail server refuses it, so the only live reset tokens are ones that went out; the link is
 * never logged or stored.
 */
export class MailOutboxService extends BackgroundWorker {
  constructor(
    private readonly outbox: MailOutboxRepository,
    private readonly resets: PasswordResetRepository,
    private readonly tokens: TokenService,
    private readonly mailer: Mailer,
    private readonly options: MailOutboxOptions,
    private readonly logger: Logger,
  ) {
    // A mail queued while a pass runs gets another pass: the running one may have looked already.
    super(logger, { failureMessage: 'mail outbox deferred', rerunWhenCalledDuringPass: true });
  }

  protected async pass(): Promise<void> {
    for (;;) {
      const due = await this.outbox.claimDue(20, this.options.leaseMs);
      if (due.length === 0) return;
      await Promise.all(due.map((m) => this.deliver(m)));
    }
  }

  private async deliver(mail: DueMail): Promise<void> {
    const { token, jti, expiresAt } = this.tokens.issueReset(mail.userId);
    try {
      await this.resets.record(jti, mail.userId, expiresAt);
      const link = `${this.options.publicBaseUrl}/reset-password?token=${encodeURIComponent(token)}`;
      await this.mailer.send({ to: mail.email, ...resetPasswordEmail({ firstName: mail.firstName, link }) });
    } catch (err) {
      // Found by tests/faults/smtp-faults.test.ts: a token nobody received must not stay live.
      await this.resets.discard(jti).catch(() => undefined);
      await this.failed(mail, errorReason(err));
      return;
    }
    await this.outbox.markSent(mail.id);
  }

  private async failed(mail: DueMail, reason: string): Promise<void> {
    if (mail.attempts >= this.options.maxAttempts) {
      this.logger.error({ mailId: mail.id, kind: mail.kind, attempts: mail.attempts, reason }, 'mail set aside after its last attempt');
      await this.outbox.markFailed(mail.id, reason).catch(() => undefined);
      return;
    }
    const delay = Math.min(this.options.maxDelayMs, this.options.retryBaseMs * 2 ** (mail.attempts - 1));
    this.logger.warn({ mailId: mail.id, kind: mail.kind, attempt: mail.attempts, reason }, 'mail not sent, retrying later');
    await this.outbox.retryLater(mail.id, delay, reason).catch(() => undefined);
  }
}
