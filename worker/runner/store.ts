/** The Runner object's one job, in SQLite: what to run, and how far it got (so a restart knows). */
import type { RunJob } from "./address";

/**
 * waiting: its alarm will start it; running: a run began (found so by an alarm, its host died);
 * standby: watching an inline run; asking: its run asked the caller, and the call waits in the ledger
 * for the answers (resume() makes it waiting again, with them); child: a code run waits for one of its
 * calls' approval (the alarm looks at that call and runs the program again once it is decided).
 */
export type JobState = "waiting" | "running" | "standby" | "asking" | "child";

export interface StoredJob {
  job: RunJob;
  state: JobState;
  /** Runs begun so far. */
  attempts: number;
}

export function migrate(sql: SqlStorage): void {
  sql.exec(`CREATE TABLE IF NOT EXISTS job (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    body TEXT NOT NULL,
    state TEXT NOT NULL,
    attempts INTEGER NOT NULL
  )`);
}

export function readJob(sql: SqlStorage): StoredJob | undefined {
  const row = sql
    .exec<{ body: string; state: JobState; attempts: number }>("SELECT body, state, attempts FROM job WHERE id = 1")
    .toArray()[0];
  return row ? { job: JSON.parse(row.body) as RunJob, state: row.state, attempts: row.attempts } : undefined;
}

export function writeJob(sql: SqlStorage, job: RunJob, state: JobState): void {
  sql.exec("INSERT OR REPLACE INTO job (id, body, state, attempts) VALUES (1, ?, ?, 0)", JSON.stringify(job), state);
}

/** Marks a run as begun, before it begins: found so by a later alarm, the run's host died. */
export function beginRun(sql: SqlStorage): number {
  return sql
    .exec<{ attempts: number }>(
      "UPDATE job SET state = 'running', attempts = attempts + 1 WHERE id = 1 RETURNING attempts",
    )
    .one().attempts;
}

export function clearJob(sql: SqlStorage): void {
  sql.exec("DELETE FROM job");
}
