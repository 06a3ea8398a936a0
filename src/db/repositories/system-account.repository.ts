import { eq } from 'drizzle-orm';
import type { Database } from '../client';
import { systemAccounts } from '../schema';
import { first } from './rows';

export type SystemAccountName = 'issuer' | 'distribution';
export type SystemAccountRow = typeof systemAccounts.$inferSelect;

export class SystemAccountRepository {
  constructor(private readonly db: Database) {}

  async find(name: SystemAccountName): Promise<SystemAccountRow | undefined> {
    return first(this.db.select().from(systemAccounts).where(eq(systemAccounts.name, name)));
  }

  /** Inserts unless another process stored one first; returns whichever row won. */
  async insertOnce(row: Omit<SystemAccountRow, 'createdAt'>): Promise<SystemAccountRow> {
    await this.db.insert(systemAccounts).values(row).onConflictDoNothing();
    return (await this.find(row.name))!;
  }
}
