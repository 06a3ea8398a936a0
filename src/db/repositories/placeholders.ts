import { sql, type SQL } from 'drizzle-orm';

/**
 * A prepared statement's value to set a column to: drizzle's set() takes SQL, not a bare
 * placeholder; node-postgres serializes it as it does the value itself (a Date with its offset).
 */
export function placeholderValue(name: string): SQL {
  return sql`${sql.placeholder(name)}`;
}
