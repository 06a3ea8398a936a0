import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { adminRecoveryCodes } from '../schema';

/** An admin's recovery codes (admin_recovery_codes), by their hashes only. */
export class RecoveryCodeRepository {
  constructor(private readonly db: Database) {}

  /** The admin's codes become exactly these (an enrolment's new set; older ones stop working). */
  async replace(tx: Executor, adminId: string, codeHashes: string[]): Promise<void> {
    await tx.delete(adminRecoveryCodes).where(eq(adminRecoveryCodes.adminId, adminId));
    await tx.insert(adminRecoveryCodes).values(codeHashes.map((codeHash) => ({ adminId, codeHash })));
  }

  /** Uses a code once: true only for an unused code of this admin, by one conditional update. */
  async spend(adminId: string, codeHash: string): Promise<boolean> {
    const rows = await this.db
      .update(adminRecoveryCodes)
      .set({ usedAt: sql`now()` })
      .where(and(eq(adminRecoveryCodes.adminId, adminId), eq(adminRecoveryCodes.codeHash, codeHash), isNull(adminRecoveryCodes.usedAt)))
      .returning({ id: adminRecoveryCodes.id });
    return rows.length > 0;
  }
}
