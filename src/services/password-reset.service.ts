import type { Mailer } from '../clients/mailer';
import type { Database } from '../db/client';
import type { PasswordResetRepository } from '../db/repositories/password-reset.repository';
import type { UserRepository } from '../db/repositories/user.repository';
import { AppError } from '../errors/app-error';
import type { PasswordHasher } from '../security/password-hasher';
import { TokenError, type TokenService } from '../security/tokens';
import { resetPasswordEmail } from '../views/reset-password-email';

export class PasswordResetService {
  constructor(
    private readonly db: Database,
    private readonly users: UserRepository,
    private readonly resets: PasswordResetRepository,
    private readonly hasher: PasswordHasher,
    private readonly tokens: TokenService,
    private readonly mailer: Mailer,
    private readonly publicBaseUrl: string,
    /** Told after a password changes (the auth cache forgets the user at once). */
    private readonly onPasswordChanged: (userId: string) => void = () => undefined,
  ) {}

  /**
   * Mails a one-hour reset link when the address belongs to an account. The caller answers the
   * same way either way, so the endpoint cannot be used to find out who has an account.
   */
  async requestReset(email: string): Promise<void> {
    const user = await this.users.findByEmail(email);
    if (!user) return;
    const { token, jti, expiresAt } = this.tokens.issueReset(user.id);
    await this.resets.record(jti, user.id, expiresAt);
    const link = `${this.publicBaseUrl}/reset-password?token=${encodeURIComponent(token)}`;
    try {
      await this.mailer.send({ to: user.email, ...resetPasswordEmail({ firstName: user.firstName, link }) });
    } catch (err) {
      // Found by tests/faults/smtp-faults.test.ts: with the mail server down the request failed
      // (503) but the token stayed recorded as a live credential nobody had received.
      await this.resets.discard(jti).catch(() => undefined);
      throw err;
    }
  }

  /**
   * Sets a new password with a token from the e-mail. Expired: TOKEN_EXPIRED; forged, unknown,
   * already used or voided by a later password change: TOKEN_INVALID. The token is consumed by a
   * conditional update inside the same transaction as the password change, so it works once.
   */
  async resetPassword(token: string, newPassword: string): Promise<void> {
    let claims;
    try {
      claims = this.tokens.verifyReset(token);
    } catch (err) {
      if (err instanceof TokenError && err.reason === 'expired') throw new AppError('TOKEN_EXPIRED', 'Reset token expired');
      throw new AppError('TOKEN_INVALID', 'Reset token invalid');
    }
    const passwordHash = await this.hasher.hash(newPassword);
    const done = await this.db.transaction(async (tx) => {
      if (!(await this.resets.consume(tx, claims.jti, claims.sub))) return false;
      await this.users.setPassword(tx, claims.sub, passwordHash);
      await this.resets.voidAllFor(tx, claims.sub);
      return true;
    });
    if (!done) throw new AppError('TOKEN_INVALID', 'Reset token invalid');
    // setPassword bumped password_changed_at: every access token issued until now is refused.
    this.onPasswordChanged(claims.sub);
  }
}
