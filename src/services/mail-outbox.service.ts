import type { Mailer } from '../clients/mailer';
import type { DueMail, MailOutboxRepository } from '../db/repositories/mail-outbox.repository';
import type { PasswordResetRepository } from '../db/repositories/password-reset.repository';
import type { Logger } from '../logger';
import type { TokenService } from '../security/tokens';
import { QueueWorker, type RetryPolicy } from '../workers/queue-worker';
import { resetPasswordEmail } from '../views/reset-password-email';

export interface MailOutboxOptions extends RetryPolicy {
  publicBaseUrl: string;
}

export interface MailOutboxServiceDeps {
  outbox: MailOutboxRepository;
  resets: PasswordResetRepository;
  tokens: TokenService;
  mailer: Mailer;
  options: MailOutboxOptions;
  logger: Logger;
}

/**
 * Sends the queued mail (src/db/schema.ts mailOutbox) with retries, from any number of processes.
 * A reset e-mail's token is issued and recorded when the message is sent, and forgotten again if
 * the mail server refuses it, so the only live reset tokens are ones that went out; the link is
 * never logged or stored. A request that comes once a message's link is written gets a message
 * of its own (MailOutboxRepository.queuePasswordReset). The lease (RetryPolicy.leaseMs) must
 * outlast the mailer's worst case (its SMTP timeouts), so a message is never sent by two
 * processes; after the last attempt a message is set aside (a reset link is useless after its
 * hour anyway).
 */
export class MailOutboxService extends QueueWorker<DueMail> {
  constructor(private readonly deps: MailOutboxServiceDeps) {
    super(deps.outbox, {
      failureMessage: 'mail outbox deferred',
      batchSize: 20,
      policy: deps.options,
      describe: (mail) => ({ mailId: mail.id, kind: mail.kind }),
      logMessages: { retrying: 'mail not sent, retrying later', setAside: 'mail set aside after its last attempt' },
    }, deps.logger);
  }

  protected async handle(mail: DueMail): Promise<void> {
    const { token, jti, expiresAt } = this.deps.tokens.issueReset(mail.userId);
    try {
      await this.deps.resets.record(jti, mail.userId, expiresAt);
      const link = `${this.deps.options.publicBaseUrl}/reset-password?token=${encodeURIComponent(token)}`;
      await this.deps.mailer.send({ to: mail.email, ...resetPasswordEmail({ firstName: mail.firstName, link }) });
    } catch (err) {
      // Found by tests/faults/smtp-faults.test.ts: a token nobody received must not stay live.
      await this.deps.resets.discard(jti).catch(() => undefined);
      throw err;
    }
    await this.deps.outbox.markSent(mail.id);
  }
}
