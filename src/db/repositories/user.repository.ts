import { asc, count, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../client';
import { users, wallets } from '../schema';
import { AccountCredentials } from './account-credentials';
import { first } from './rows';

export type UserRow = typeof users.$inferSelect;
export type NewUser = Pick<UserRow, 'username' | 'email' | 'passwordHash' | 'firstName' | 'lastName'>;
export type UserChanges = Partial<Pick<UserRow, 'username' | 'email' | 'firstName' | 'lastName'>>;

/** A user joined with the public half of their wallet: what listings and profiles show. */
const userWithWallet = {
  id: users.id,
  username: users.username,
  email: users.email,
  firstName: users.firstName,
  lastName: users.lastName,
  createdAt: users.createdAt,
  ledgerPublicKey: wallets.publicKey,
};

export class UserRepository extends AccountCredentials {
  constructor(db: Database) {
    super(db, users);
    this.sealedWalletQuery = db
      .select({ ...userWithWallet, secretCiphertext: wallets.secretCiphertext, keyId: wallets.keyId })
      .from(users)
      .innerJoin(wallets, eq(wallets.userId, users.id))
      .where(eq(users.id, sql.placeholder('id')))
      .prepare('user_with_sealed_wallet');
  }

  async insert(tx: Executor, user: NewUser): Promise<UserRow> {
    const [row] = await tx.insert(users).values(user).returning();
    return row!;
  }

  async findById(id: string): Promise<UserRow | undefined> {
    return first(this.db.select().from(users).where(eq(users.id, id)));
  }

  /** Login accepts a username (any case) or an e-mail (stored lower-case). */
  async findByIdentifier(identifier: string): Promise<UserRow | undefined> {
    const lowered = identifier.toLowerCase();
    const byName = sql`lower(${users.username}) = ${lowered} or ${users.email} = ${lowered}`;
    return first(this.db.select().from(users).where(byName).limit(1));
  }

  async findByEmail(email: string): Promise<UserRow | undefined> {
    return first(this.db.select().from(users).where(eq(users.email, email)));
  }

  async findWithWallet(id: string) {
    return first(this.db.select(userWithWallet).from(users).leftJoin(wallets, eq(wallets.userId, users.id)).where(eq(users.id, id)));
  }

  /**
   * The user with the whole wallet row (sealed secret included), in one query. The profile's one query on every `GET /api/users/profile`: a prepared statement, so neither
   * Drizzle (query building) nor PostgreSQL (parse and plan) does its work again per request.
   */
  private readonly sealedWalletQuery;

  async findWithSealedWallet(id: string) {
    return first(this.sealedWalletQuery.execute({ id }));
  }

  async list(limit: number, offset: number) {
    return this.db
      .select(userWithWallet)
      .from(users)
      .leftJoin(wallets, eq(wallets.userId, users.id))
      .orderBy(asc(users.createdAt), asc(users.id))
      .limit(limit)
      .offset(offset);
  }

  async count(): Promise<number> {
    const [row] = await this.db.select({ n: count() }).from(users);
    return row?.n ?? 0;
  }

  /**
   * Returns false when no such user exists. A new e-mail counts as a credential change (it is
   * where reset links go): it ends the account's sessions like a password reset.
   */
  async update(id: string, changes: UserChanges, executor: Executor = this.db): Promise<boolean> {
    const now = new Date();
    const emailChange =
      changes.email === undefined
        ? {}
        : {
            passwordChangedAt: sql`case when ${users.email} is distinct from ${changes.email} then ${now.toISOString()}::timestamptz else ${users.passwordChangedAt} end`,
          };
    const rows = await executor
      .update(users)
      .set({ ...changes, ...emailChange, updatedAt: now })
      .where(eq(users.id, id))
      .returning({ id: users.id });
    return rows.length > 0;
  }

  async setPassword(tx: Executor, id: string, passwordHash: string): Promise<void> {
    const now = new Date();
    await tx.update(users).set({ passwordHash, passwordChangedAt: now, updatedAt: now }).where(eq(users.id, id));
  }

  async delete(tx: Executor, id: string): Promise<Pick<UserRow, 'username' | 'email'> | undefined> {
    return first(tx.delete(users).where(eq(users.id, id)).returning({ username: users.username, email: users.email }));
  }
}
