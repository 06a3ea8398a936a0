import { eq } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { admins } from '../schema';
import { AccountCredentials } from './account-credentials';
import { first } from './rows';

export type AdminRow = typeof admins.$inferSelect;

export class AdminRepository extends AccountCredentials {
  constructor(db: Database) {
    super(db, admins);
  }

  async insert(email: string, passwordHash: string, executor: Executor = this.db): Promise<AdminRow> {
    const [row] = await executor.insert(admins).values({ email, passwordHash }).returning();
    return row!;
  }

  async findById(id: string): Promise<AdminRow | undefined> {
    return first(this.db.select().from(admins).where(eq(admins.id, id)));
  }

  async findByEmail(email: string): Promise<AdminRow | undefined> {
    return first(this.db.select().from(admins).where(eq(admins.email, email)));
  }

  /** Returns false when no such admin exists; every token issued before now stops working. */
  async setPassword(id: string, passwordHash: string): Promise<boolean> {
    const rows = await this.db.update(admins).set({ passwordHash, passwordChangedAt: new Date() }).where(eq(admins.id, id)).returning({ id: admins.id });
    return rows.length > 0;
  }
}
