import { eq, getTableName, sql } from 'drizzle-orm';
import type { CredentialTimes } from '../../security/sessions';
import type { Database } from '../client';
import { admins, users } from '../schema';
import { first } from './rows';

/**
 * What the auth check reads of an account, the same for users and admins (src/security/sessions.ts):
 * whether it still exists, and when its credentials last changed.
 */
export abstract class AccountCredentials {
  /** Read by every authenticated request whose principal is not cached (PrincipalCache, src/middleware/auth.ts): prepared once. */
  private readonly times;

  protected constructor(
    protected readonly db: Database,
    accounts: typeof users | typeof admins,
  ) {
    const { createdAt, passwordChangedAt } = accounts;
    this.times = db
      .select({ createdAt, passwordChangedAt })
      .from(accounts)
      .where(eq(accounts.id, sql.placeholder('id')))
      .prepare(`${getTableName(accounts)}_credential_times`);
  }

  async exists(id: string): Promise<boolean> {
    return (await this.credentialTimes(id)) !== undefined;
  }

  /** When the account was created and last changed its credentials. */
  async credentialTimes(id: string): Promise<CredentialTimes | undefined> {
    return first(this.times.execute({ id }));
  }
}
