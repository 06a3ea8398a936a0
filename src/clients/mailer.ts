import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import { AppError } from '../errors/app-error';
import type { Logger } from '../logger';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface MailerOptions {
  /** smtp(s):// URL; unset = the development outbox. */
  smtpUrl: string | undefined;
  from: string;
  outboxDir: string;
  logger: Logger;
}

/**
 * Sends mail through SMTP, or, with nothing configured, writes each message as an .eml file in
 * DATA_DIR/outbox. The log names the file and subject only: a message body can hold a reset link,
 * and a reset link is a credential.
 */
export class Mailer {
  private readonly transport: Transporter;
  private readonly toOutbox: boolean;

  constructor(private readonly options: MailerOptions) {
    this.toOutbox = options.smtpUrl === undefined;
    this.transport = this.toOutbox
      ? nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
      : nodemailer.createTransport(smtpOptions(options.smtpUrl!));
  }

  async send(message: MailMessage): Promise<void> {
    let info: { message?: unknown };
    try {
      info = (await this.transport.sendMail({ from: this.options.from, ...message })) as { message?: unknown };
    } catch (err) {
      this.options.logger.warn({ errCode: (err as { code?: string }).code }, 'mail delivery failed');
      throw new AppError('UPSTREAM_UNAVAILABLE', 'Mail service unavailable, try again later');
    }
    if (this.toOutbox) {
      await fs.mkdir(this.options.outboxDir, { recursive: true });
      const file = path.join(this.options.outboxDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomUUID().slice(0, 8)}.eml`);
      // Written aside, then renamed: whoever reads the outbox never sees a half-written message
      // (tests/integration/password-reset.test.ts once read one empty).
      await fs.writeFile(`${file}.part`, info.message as Buffer, { mode: 0o600 });
      await fs.rename(`${file}.part`, file);
      this.options.logger.info({ file, subject: message.subject }, 'mail written to outbox');
    }
  }

  close(): void {
    this.transport.close();
  }
}

/** SMTP transport options from the URL, with timeouts so a dead mail server fails a request fast. */
function smtpOptions(url: string) {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : parsed.protocol === 'smtps:' ? 465 : 587,
    secure: parsed.protocol === 'smtps:',
    auth: parsed.username ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) } : undefined,
    // Local and test servers often have no certificate; `?tls=insecure` says so explicitly.
    tls: parsed.searchParams.get('tls') === 'insecure' ? { rejectUnauthorized: false } : undefined,
    ignoreTLS: parsed.searchParams.get('starttls') === 'off',
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  };
}
