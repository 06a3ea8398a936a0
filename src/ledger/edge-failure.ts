/**
 * A call across the ledger module's edge, to a system outside it (the ledger API, the database,
 * the advisory lock), as a value: what it answered, or what it threw because the system could not
 * be reached or failed. It decides nothing: the caller switches on the value and says there what a
 * failure means where it stands (look again, answer the jobs `waiting`). A bug thrown by the same
 * call arrives as the same value, as it did before outcomes were values.
 */
export type Reached<T> = { reached: true; value: T } | { reached: false; error: Error };

export async function reach<T>(call: () => Promise<T>): Promise<Reached<T>> {
  try {
    return { reached: true, value: await call() };
  } catch (err) {
    return { reached: false, error: err instanceof Error ? err : new Error(String(err)) };
  }
}
