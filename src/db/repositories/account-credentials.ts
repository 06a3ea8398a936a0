import { eq } from 'drizzle-orm';
import type { CredentialTimes } from '../../security/sessions';
import type { Database } from '../client';
import { admins, users } from '../schema';
import { first } from './rows';

/**
 * What the auth check reads of an account, the same for users and admins (src/security/sessions.ts):
 * whether it still exists, and when its credentials last changed.
 */
export abstract class AccountCredentials {
  protected constructor(
    protected readonly db: Database,
    private readonly accounts: typeof users | typeof admins,
  ) {}

  async exists(id: string): Promise<boolean> {
    return (await this.credentialTimes(id)) !== undefined;
  }

  /** When the account was created and last changed its credentials. */
  async credentialTimes(id: string): Promise<CredentialTimes | undefined> {
    const { createdAt, passwordChangedAt } = this.accounts;
    return first(this.db.select({ createdAt, passwordChangedAt }).from(this.accounts).where(eq(this.accounts.id, id)));
  }
}
