/**
 * storage.transactionSync, tried twice. A transaction that throws has rolled back every write it
 * made, so running it once more on what SQLite holds is safe: a passing storage failure then costs
 * the caller nothing, and one that repeats is thrown. `rolledBack` drops whatever in-memory state
 * the failed run may have changed, so the second run starts from SQLite.
 */
export function transact<T>(storage: DurableObjectStorage, run: () => T, rolledBack?: () => void): T {
  try {
    return storage.transactionSync(run);
  } catch {
    rolledBack?.();
  }
  try {
    return storage.transactionSync(run);
  } catch (error) {
    rolledBack?.();
    throw error;
  }
}
