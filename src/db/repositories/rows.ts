/** node-postgres answers `{rows}`, PGlite an array: the rows either way. */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** The first row a query returns, or undefined when it returns none. */
export async function first<T>(query: PromiseLike<T[]>): Promise<T | undefined> {
  const [row] = await query;
  return row;
}
