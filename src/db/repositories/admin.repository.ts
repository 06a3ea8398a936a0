import { eq } from 'drizzle-orm';
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
}
