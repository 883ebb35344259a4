import type { JournalEnd } from "../../src/journal";
import { logLine } from "../log";
import { takenConflict } from "./taken";
import type { CommitInput, WriteOutcome } from "./types";

/**
 * Records of read-only calls stored after their answer (tenant setting readOnlyRecords:
 * "after-answer"). The answer never waits for the ledger: its commit joins this isolate's other writes
 * to the shard for RECORD_DELAY_MS and they travel in one round trip, under the request's waitUntil.
 * Until it is stored, a call with the same id in this isolate meets it here (replay or conflict, as
 * the ledger would answer); elsewhere, or once it is stored, a read-only call runs without asking the
 * ledger, and the ledger keeps the first record of an id.
 */

/** How long a record waits for others before its group leaves (its own round trip comes on top). */
export const RECORD_DELAY_MS = 50;

/**
 * Per scope (a journal's write scope in its tenant) and call id: the commit this isolate
 * answered and has not stored yet.
 */
const unstored = new Map<string, CommitInput>();
const entryKey = (scope: string, callId: string) => `${scope}\n${callId}`;

/** What a call with this id, key and arguments meets while an earlier one's record is on its way from this isolate. */
export function unstoredClaim(
  scope: string,
  callId: string,
  who: { key: string | null; userId: string | null },
  argsHash: string,
): JournalEnd | undefined {
  const input = unstored.get(entryKey(scope, callId));
  if (!input) return undefined;
  const taken = { key: input.key, userId: input.user?.id ?? null, tool: input.record.tool, argsHash: input.argsHash };
  return takenConflict(callId, taken, who, argsHash) ?? { kind: "replay", record: input.record };
}

/**
 * Stores a read-only call's record after its answer by `store` (the journal's commit, grouped with this
 * isolate's writes to the shard of the next RECORD_DELAY_MS); the first record of an id stands (a later
 * one with the same id is dropped by the ledger). A record that cannot be stored is logged, as it
 * never reaches the ledger.
 */
export function storeAfterAnswer(
  scope: string,
  input: CommitInput,
  store: () => Promise<WriteOutcome>,
  waitUntil?: (promise: Promise<unknown>) => void,
): void {
  const key = entryKey(scope, input.record.callId);
  if (unstored.has(key)) return; // the same id already answered here: the first record stands
  unstored.set(key, input);
  const stored = store()
    .then((outcome) => {
      if (outcome.kind === "error") throw new Error(outcome.message);
    })
    .catch((error: unknown) => {
      logLine({
        msg: "record_lost",
        tenant: input.record.tenant,
        callId: input.record.callId,
        error: error instanceof Error ? error.message : String(error),
      });
    })
    .finally(() => unstored.delete(key));
  waitUntil?.(stored);
}
