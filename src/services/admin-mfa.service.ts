import type { Database } from '../db/client';
import { mfaSecretBinding } from '../db/admin-mfa-schema';
import type { AdminMfaRepository, AdminMfaRow } from '../db/repositories/admin-mfa.repository';
import type { AdminRepository } from '../db/repositories/admin.repository';
import { appendAdminLog, type AdminLogRepository } from '../db/repositories/admin-log.repository';
import type { AdminActor } from '../domain/admin-log';
import type { RecoveryCodeRepository } from '../db/repositories/recovery-code.repository';
import { AppError } from '../errors/app-error';
import type { PasswordHasher } from '../security/password-hasher';
import { newRecoveryCodes, RECOVERY_CODE, recoveryCodeHash } from '../security/recovery-codes';
import { newTotpSecret, TOTP_CODE, totpStep, totpUri } from '../security/totp';
import type { WalletCipher } from '../security/wallet-cipher';

export interface AdminMfaServiceDeps {
  db: Database;
  admins: AdminRepository;
  mfa: AdminMfaRepository;
  recoveryCodes: RecoveryCodeRepository;
  hasher: PasswordHasher;
  /** Seals TOTP secrets as it seals wallet keys (and key rotation re-seals both). */
  cipher: WalletCipher;
  /** The name an authenticator app shows beside the admin's e-mail. */
  issuer: string;
  /** Enrolment and its failures are admin actions: one row each. */
  log: AdminLogRepository;
  /** The clock codes are checked against, in ms; Date.now unless a test sets it. */
  now?: () => number;
}

/** How an admin's login passed its second factor, or that MFA is off for the admin. */
export type SecondFactor = 'off' | 'otp' | 'recovery-code';

const ALREADY_ON = 'MFA is already on for this account';

/**
 * Admin MFA: enrolment (setup, then confirm with a first code), and the second factor of an
 * admin login. A code is accepted once: each admin's last accepted time step is kept, and a code
 * passes only for a later step, spent by one conditional update.
 */
export class AdminMfaService {
  private readonly now: () => number;

  constructor(private readonly deps: AdminMfaServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * Starts enrolment with a new secret, answered once as an otpauth:// URI (the route adds its QR
   * code). The admin's password is asked again: a stolen session alone cannot enrol its own
   * authenticator and lock the owner out. A setup before confirmation replaces the pending secret;
   * once MFA is on, CONFLICT (turning it off or resetting it is an operator's job, not the API's).
   */
  async setup(adminId: string, password: string, actor: AdminActor): Promise<{ otpauthUri: string }> {
    const admin = await this.deps.admins.findById(adminId);
    if (!admin) throw new AppError('UNAUTHENTICATED', 'Account no longer exists');
    if (!(await this.deps.hasher.compare(password, admin.passwordHash))) {
      await this.deps.log.append({ ...actor, action: 'admin.mfa_setup_failed', target: adminId, details: { reason: 'wrong password' } });
      throw new AppError('FORBIDDEN', 'Invalid password');
    }
    const secret = newTotpSecret();
    const sealed = this.deps.cipher.seal(secret, mfaSecretBinding(adminId));
    const started = await this.deps.db.transaction(async (tx) => {
      if (!(await this.deps.mfa.startEnrolment(adminId, { secretCiphertext: sealed.ciphertext, keyId: sealed.keyId }, tx))) return false;
      await appendAdminLog(tx, { ...actor, action: 'admin.mfa_setup', target: adminId });
      return true;
    });
    if (!started) throw new AppError('CONFLICT', ALREADY_ON);
    return { otpauthUri: totpUri(secret, this.deps.issuer, admin.email) };
  }

  /**
   * Turns MFA on with a first code from the authenticator (its step is spent: it cannot log in
   * afterwards) and answers the ten recovery codes, the only time they are shown. A wrong code is
   * VALIDATION; no enrolment, or MFA already on, CONFLICT.
   */
  async confirm(adminId: string, otp: string, actor: AdminActor): Promise<{ recoveryCodes: string[] }> {
    const enrolment = await this.deps.mfa.find(adminId);
    if (!enrolment) throw new AppError('CONFLICT', 'No MFA setup to confirm: POST /api/admin/mfa/setup first');
    if (enrolment.enabledAt) throw new AppError('CONFLICT', ALREADY_ON);
    const step = totpStep(this.secretOf(enrolment), otp, this.now());
    if (step === undefined) {
      await this.deps.log.append({ ...actor, action: 'admin.mfa_confirm_failed', target: adminId, details: { reason: 'one-time code refused' } });
      throw new AppError('VALIDATION', 'Invalid one-time code');
    }
    const recoveryCodes = newRecoveryCodes();
    const enabled = await this.deps.db.transaction(async (tx) => {
      if (!(await this.deps.mfa.enable(tx, adminId, enrolment, step))) return false;
      await this.deps.recoveryCodes.replace(tx, adminId, recoveryCodes.map(recoveryCodeHash));
      await appendAdminLog(tx, { ...actor, action: 'admin.mfa_enabled', target: adminId, details: { recoveryCodes: recoveryCodes.length } });
      return true;
    });
    // Another setup replaced the secret between the read and the update (or a confirmation won).
    if (!enabled) throw new AppError('CONFLICT', 'The MFA setup changed meanwhile: confirm with a code of the latest setup');
    return { recoveryCodes };
  }

  /**
   * The second factor of an admin login whose password was right. 'off' when the admin has no MFA
   * on (`otp` is not looked at); else `otp` must be a code of a later step than any accepted
   * before, or an unused recovery code, and is spent here. Missing or refused: UNAUTHENTICATED.
   */
  async secondFactor(adminId: string, otp: string | undefined): Promise<SecondFactor> {
    const enrolment = await this.deps.mfa.find(adminId);
    if (!enrolment?.enabledAt) return 'off';
    if (otp === undefined) throw new AppError('UNAUTHENTICATED', 'One-time code required');
    if (TOTP_CODE.test(otp)) {
      const step = totpStep(this.secretOf(enrolment), otp, this.now());
      if (step !== undefined && (await this.deps.mfa.spendStep(adminId, step))) return 'otp';
    } else if (RECOVERY_CODE.test(otp) && (await this.deps.recoveryCodes.spend(adminId, recoveryCodeHash(otp)))) {
      return 'recovery-code';
    }
    // The login logs the refusal (AdminService.login): this only says no.
    throw new AppError('UNAUTHENTICATED', 'Invalid one-time code');
  }

  private secretOf(enrolment: AdminMfaRow): string {
    return this.deps.cipher.open({ ciphertext: enrolment.secretCiphertext, keyId: enrolment.keyId }, mfaSecretBinding(enrolment.adminId));
  }
}
