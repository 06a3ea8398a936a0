import { and, eq, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { adminMfa } from '../schema';
import { first } from './rows';

export type AdminMfaRow = typeof adminMfa.$inferSelect;
export type SealedMfaSecret = Pick<AdminMfaRow, 'secretCiphertext' | 'keyId'>;

/** An admin's TOTP enrolment (admin_mfa): each change one conditional statement. */
export class AdminMfaRepository {
  constructor(private readonly db: Database) {}

  async find(adminId: string): Promise<AdminMfaRow | undefined> {
    return first(this.db.select().from(adminMfa).where(eq(adminMfa.adminId, adminId)));
  }

  /**
   * Starts an enrolment with a new sealed secret, or replaces the one still waiting for
   * confirmation; false when MFA is already on (the row is left as it is). One upsert whose
   * update is conditional, so a setup racing a confirmation never replaces an enabled secret.
   */
  async startEnrolment(adminId: string, sealed: SealedMfaSecret, executor: Executor = this.db): Promise<boolean> {
    const rows = await executor
      .insert(adminMfa)
      .values({ adminId, ...sealed })
      .onConflictDoUpdate({
        target: adminMfa.adminId,
        set: { secretCiphertext: sealed.secretCiphertext, keyId: sealed.keyId, lastUsedStep: null, updatedAt: sql`now()` },
        setWhere: isNull(adminMfa.enabledAt),
      })
      .returning({ adminId: adminMfa.adminId });
    return rows.length > 0;
  }

  /**
   * Turns MFA on, its first code's step spent, only if the enrolment still waits with the very
   * secret the code was checked against (a second setup meanwhile replaced it: false).
   */
  async enable(tx: Executor, adminId: string, checked: SealedMfaSecret, step: number): Promise<boolean> {
    const rows = await tx
      .update(adminMfa)
      .set({ enabledAt: sql`now()`, lastUsedStep: step, updatedAt: sql`now()` })
      .where(and(eq(adminMfa.adminId, adminId), isNull(adminMfa.enabledAt), eq(adminMfa.secretCiphertext, checked.secretCiphertext)))
      .returning({ adminId: adminMfa.adminId });
    return rows.length > 0;
  }

  /**
   * Spends a code's time step: true only when MFA is on and `step` is later than the last step
   * accepted. One conditional update, so two logins with the same code cannot both pass (the
   * second waits for the first's row lock, then finds the step used).
   */
  async spendStep(adminId: string, step: number): Promise<boolean> {
    const rows = await this.db
      .update(adminMfa)
      .set({ lastUsedStep: step, updatedAt: sql`now()` })
      .where(and(eq(adminMfa.adminId, adminId), isNotNull(adminMfa.enabledAt), or(isNull(adminMfa.lastUsedStep), lt(adminMfa.lastUsedStep, step))))
      .returning({ adminId: adminMfa.adminId });
    return rows.length > 0;
  }
}
