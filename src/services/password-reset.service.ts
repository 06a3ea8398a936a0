import type { Database } from '../db/client';
import type { MailOutboxRepository } from '../db/repositories/mail-outbox.repository';
import type { PasswordResetRepository } from '../db/repositories/password-reset.repository';
import type { UserRepository } from '../db/repositories/user.repository';
import { AppError } from '../errors/app-error';
import type { PasswordHasher } from '../security/password-hasher';
import { TokenError, type TokenService } from '../security/tokens';

export interface PasswordResetServiceDeps {
  db: Database;
  users: UserRepository;
  resets: PasswordResetRepository;
  hasher: PasswordHasher;
  tokens: TokenService;
  outbox: MailOutboxRepository;
  /** Told after a reset e-mail may have been queued (the mail worker looks at once). */
  onMailQueued: () => void;
  /** Told after a password changes (the auth cache forgets the user at once). */
  onPasswordChanged?: (userId: string) => void;
}

export class PasswordResetService {
  constructor(private readonly deps: PasswordResetServiceDeps) {}

  /**
   * Queues a one-hour reset link for the address when it belongs to an account; the mail worker
   * sends it. Known and unknown addresses take the same single statement, and mail being down
   * changes nothing here, so the answer cannot tell who has an account (CONTRACT 3). Asking again
   * while a reset e-mail is queued adds no e-mail, unless that one's link is already written: then
   * another follows, so the latest request is always answered by a link issued after it.
   */
  async requestReset(email: string): Promise<void> {
    await this.deps.outbox.queuePasswordReset(email);
    this.deps.onMailQueued();
  }

  /**
   * Sets a new password with a token from the e-mail. Expired: TOKEN_EXPIRED; forged, unknown,
   * already used or voided by a later password change: TOKEN_INVALID. The token is consumed by a
   * conditional update inside the same transaction as the password change, so it works once.
   */
  async resetPassword(token: string, newPassword: string): Promise<void> {
    let claims;
    try {
      claims = this.deps.tokens.verifyReset(token);
    } catch (err) {
      if (err instanceof TokenError && err.reason === 'expired') throw new AppError('TOKEN_EXPIRED', 'Reset token expired');
      throw new AppError('TOKEN_INVALID', 'Reset token invalid');
    }
    const passwordHash = await this.deps.hasher.hash(newPassword);
    const done = await this.deps.db.transaction(async (tx) => {
      if (!(await this.deps.resets.consume(tx, claims.jti, claims.sub))) return false;
      await this.deps.users.setPassword(tx, claims.sub, passwordHash);
      await this.deps.resets.voidAllFor(tx, claims.sub);
      return true;
    });
    if (!done) throw new AppError('TOKEN_INVALID', 'Reset token invalid');
    // setPassword bumped password_changed_at: every access token issued until now is refused.
    this.deps.onPasswordChanged?.(claims.sub);
  }
}
