import type { Database } from '../db/client';
import { isUniqueViolation } from '../db/client';
import type { AdminRepository } from '../db/repositories/admin.repository';
import { appendAdminLog, type AdminLogRepository, type AdminLogRow } from '../db/repositories/admin-log.repository';
import type { AdminActor } from '../domain/admin-log';
import type { CountedRecordTuple, OwnedRecordTuple, TransactionRepository } from '../db/repositories/transaction.repository';
import type { UserChanges, UserRepository } from '../db/repositories/user.repository';
import type { WalletRepository } from '../db/repositories/wallet.repository';
import { AppError } from '../errors/app-error';
import type { PasswordHasher } from '../security/password-hasher';
import { firstAcceptedIat, waitUntilAccepted } from '../security/sessions';
import type { Role, TokenService } from '../security/tokens';
import type { AdminMfaService } from './admin-mfa.service';
import type { WalletService } from './wallet.service';

export interface Page<T> {
  items: T[];
  total: number;
}

export interface AdminServiceDeps {
  db: Database;
  admins: AdminRepository;
  users: UserRepository;
  wallets: WalletRepository;
  walletService: WalletService;
  transactions: TransactionRepository;
  hasher: PasswordHasher;
  tokens: TokenService;
  log: AdminLogRepository;
  /** The second factor of a login (admin MFA). */
  mfa: AdminMfaService;
  /**
   * ADMIN_MFA_REQUIRED: an admin without MFA on logs in to a token that can only set it up
   * (scope `mfa-setup`); otherwise to a full admin token.
   */
  mfaRequired: boolean;
  /** Told after an account is deleted or its credentials change (the auth cache forgets it at once). */
  onSessionsEnded?: (principal: { id: string; role: Role }) => void;
}

/**
 * The admins' own use cases: log in, provision, manage users, read a wallet's keys. Each action
 * appends its row to the admin log (src/domain/admin-log.ts): in the transaction of the write it
 * makes, and for a secret read before the secret is returned (no row, no secret).
 */
export class AdminService {
  constructor(private readonly deps: AdminServiceDeps) {}

  /**
   * Unknown e-mail: NOT_FOUND (the spec's 404); wrong password: UNAUTHENTICATED. With MFA on,
   * `otp` (a 6-digit code or a recovery code) is the second factor, spent once: missing or refused,
   * UNAUTHENTICATED. Without MFA while it is required, the token can only set MFA up. Every
   * refusal is logged as a failed login, with why; a login, with its factor.
   */
  async login(email: string, password: string, actor: AdminActor, otp?: string): Promise<{ token: string }> {
    const admin = await this.deps.admins.findByEmail(email);
    const failed = (adminId: string | null, reason: string) => this.deps.log.append({ ...actor, adminId, action: 'admin.login_failed', details: { email, reason } });
    if (!admin) {
      await failed(null, 'unknown address');
      throw new AppError('NOT_FOUND', 'Admin not found');
    }
    if (!(await this.deps.hasher.compare(password, admin.passwordHash))) {
      await failed(admin.id, 'wrong password');
      throw new AppError('UNAUTHENTICATED', 'Invalid credentials');
    }
    const factor = await this.deps.mfa.secondFactor(admin.id, otp).catch(async (err: unknown) => {
      await failed(admin.id, otp === undefined ? 'one-time code missing' : 'one-time code refused');
      throw err;
    });
    await waitUntilAccepted(admin);
    const setupOnly = factor === 'off' && this.deps.mfaRequired;
    await this.deps.log.append({ ...actor, adminId: admin.id, action: 'admin.login', details: { email, factor, setupOnly } });
    return { token: this.deps.tokens.issueAccess(admin.id, 'admin', setupOnly ? 'mfa-setup' : undefined) };
  }

  /** A new admin, and its log row, in one transaction. */
  async provision(email: string, password: string, actor: AdminActor): Promise<{ adminId: string }> {
    const passwordHash = await this.deps.hasher.hash(password);
    try {
      return await this.deps.db.transaction(async (tx) => {
        const admin = await this.deps.admins.insert(email, passwordHash, tx);
        await appendAdminLog(tx, { ...actor, action: 'admin.provision', target: admin.id, details: { email } });
        return { adminId: admin.id };
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('CONFLICT', 'An admin with this email already exists');
      throw err;
    }
  }

  /** Creates the bootstrap admin (ADMIN_EMAIL) unless one with that e-mail exists; safe to run at every start. */
  async ensureAdmin(email: string, password: string): Promise<'created' | 'exists'> {
    if (await this.deps.admins.findByEmail(email)) return 'exists';
    try {
      await this.provision(email, password, { adminId: null });
      return 'created';
    } catch (err) {
      // Another instance starting at the same moment created it first.
      if (err instanceof AppError && err.code === 'CONFLICT') return 'exists';
      throw err;
    }
  }

  async exists(adminId: string): Promise<boolean> {
    return this.deps.admins.exists(adminId);
  }

  /** The first access-token `iat` the admin accepts; undefined when the admin no longer exists. */
  async firstAcceptedIat(adminId: string): Promise<number | undefined> {
    const times = await this.deps.admins.credentialTimes(adminId);
    return times && firstAcceptedIat(times);
  }

  /**
   * Sets an admin's password and ends every session the admin had (no route calls this: an
   * operator's tool; the API has no admin password change).
   */
  async changePassword(adminId: string, password: string): Promise<void> {
    const passwordHash = await this.deps.hasher.hash(password);
    if (!(await this.deps.admins.setPassword(adminId, passwordHash))) throw new AppError('NOT_FOUND', 'Admin not found');
    this.deps.onSessionsEnded?.({ id: adminId, role: 'admin' });
  }

  async listUsers(limit: number, offset: number) {
    const [items, total] = await Promise.all([this.deps.users.list(limit, offset), this.deps.users.count()]);
    return { items, total };
  }

  /**
   * Changes only the fields sent; a username or e-mail held by another account is a CONFLICT.
   * A new e-mail ends the user's sessions (the repository bumps password_changed_at).
   */
  async updateUser(userId: string, changes: UserChanges, actor: AdminActor): Promise<void> {
    let found: boolean;
    try {
      found = await this.deps.db.transaction(async (tx) => {
        if (!(await this.deps.users.update(userId, changes, tx))) return false;
        await appendAdminLog(tx, { ...actor, action: 'user.update', target: userId, details: { fields: Object.keys(changes).sort() } });
        return true;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('CONFLICT', 'Username or email already taken');
      throw err;
    }
    if (!found) throw new AppError('NOT_FOUND', 'User not found');
    if (changes.email !== undefined) this.deps.onSessionsEnded?.({ id: userId, role: 'user' });
  }

  /**
   * Deletes the account and its credentials for good. The wallet's encrypted key moves to the
   * archive first, in the same transaction, so tokens on the ledger never become unreachable;
   * transaction and payment records stay as financial history.
   */
  async deleteUser(userId: string, actor: AdminActor): Promise<void> {
    const deleted = await this.deps.db.transaction(async (tx) => {
      // Deleting the wallet row first locks it: a concurrent delete waits, then finds nothing.
      const wallet = await this.deps.wallets.remove(tx, userId);
      const user = await this.deps.users.delete(tx, userId);
      if (!user) return false;
      if (wallet) await this.deps.wallets.archive(tx, wallet, user);
      await appendAdminLog(tx, { ...actor, action: 'user.delete', target: userId, details: { email: user.email } });
      return true;
    });
    if (!deleted) throw new AppError('NOT_FOUND', 'User not found');
    this.deps.onSessionsEnded?.({ id: userId, role: 'user' });
  }

  /** A wallet's keys: the read is logged first, and the secret is returned only once its row is committed. */
  async userWallet(userId: string, actor: AdminActor): Promise<{ ledgerPublicKey: string; ledgerSecretKey: string }> {
    const keys = await this.deps.walletService.keysOf(userId);
    if (!keys) throw new AppError('NOT_FOUND', 'User not found');
    await this.deps.log.append({ ...actor, action: 'wallet.secret_read', target: userId, details: { publicKey: keys.ledgerPublicKey } });
    return keys;
  }

  async userTransactions(userId: string, limit: number, offset: number): Promise<Page<CountedRecordTuple>> {
    const { rows: items, total } = await this.deps.transactions.userPage(userId, limit, offset);
    // A deleted user's history stays readable; an id that never had anything is not found.
    if (total === 0 && !(await this.deps.users.exists(userId))) throw new AppError('NOT_FOUND', 'User not found');
    return { items, total };
  }

  /** The admin log, newest first, optionally of one admin and one action (GET /api/admin/audit-log). */
  async auditLog(filter: { adminId?: string; action?: string; limit: number; offset: number }): Promise<Page<AdminLogRow>> {
    const { rows: items, total } = await this.deps.log.page(filter);
    return { items, total };
  }

  async allTransactions(limit: number, offset: number): Promise<Page<OwnedRecordTuple>> {
    const [items, total] = await Promise.all([this.deps.transactions.adminPage(limit, offset), this.deps.transactions.countAll()]);
    return { items, total };
  }
}
