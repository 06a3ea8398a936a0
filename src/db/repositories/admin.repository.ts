import { eq } from 'drizzle-orm';
import type { CredentialTimes } from '../../security/sessions';
import type { Database } from '../client';
import { admins } from '../schema';

export type AdminRow = typeof admins.$inferSelect;

export class AdminRepository {
  constructor(private readonly db: Database) {}

  async insert(email: string, passwordHash: string): Promise<AdminRow> {
    const [row] = await this.db.insert(admins).values({ email, passwordHash }).returning();
    return row!;
  }

  async findByEmail(email: string): Promise<AdminRow | undefined> {
    const [row] = await this.db.select().from(admins).where(eq(admins.email, email));
    return row;
  }

  async exists(id: string): Promise<boolean> {
    const rows = await this.db.select({ id: admins.id }).from(admins).where(eq(admins.id, id));
    return rows.length > 0;
  }

  async credentialTimes(id: string): Promise<CredentialTimes | undefined> {
    const [row] = await this.db
      .select({ createdAt: admins.createdAt, passwordChangedAt: admins.passwordChangedAt })
      .from(admins)
      .where(eq(admins.id, id));
    return row;
  }

  /** Returns false when no such admin exists; every token issued before now stops working. */
  async setPassword(id: string, passwordHash: string): Promise<boolean> {
    const rows = await this.db.update(admins).set({ passwordHash, passwordChangedAt: new Date() }).where(eq(admins.id, id)).returning({ id: admins.id });
    return rows.length > 0;
  }
}
