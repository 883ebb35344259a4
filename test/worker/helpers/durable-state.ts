import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { GateState } from "../../../src/gates/types";
import { callKey } from "../../../worker/ledger/waiters";
import { waitPast } from "../../wait";

/**
 * What a Durable Object holds in memory or storage that its RPC methods do not show, read inside the
 * object, so tests can wait for the state they need (a request parked in the object, an alarm set,
 * a deadline stored) instead of sleeping until it probably happened. Read-only.
 */

/** The Gate's private parts these reads use. */
interface GateInside {
  waiting: Map<string, unknown[]>;
  state: GateState | undefined;
}
/** The Ledger's private parts these reads use. */
interface LedgerInside {
  waiters: { byKey: Map<string, Set<unknown>> };
}

const rawGate = (gate: string) => env.GATES.get(env.GATES.idFromName(gate)) as unknown as DurableObjectStub;

/** Is the call's acquire RPC held open at the gate (a long poll that only a grant or its end answers)? */
export function isPolling(gate: string, callId: string): Promise<boolean> {
  return runInDurableObject(
    rawGate(gate),
    (gateObject: unknown) => ((gateObject as GateInside).waiting.get(callId)?.length ?? 0) > 0,
  );
}

/** When a waiter leaves the gate's queue unless it polls again (its stored deadline), if it waits. */
export function waiterDeadline(gate: string, callId: string): Promise<number | undefined> {
  return runInDurableObject(
    rawGate(gate),
    (gateObject: unknown) => (gateObject as GateInside).state?.waiters.find((w) => w.callId === callId)?.deadline,
  );
}

/** When the object's alarm is set for, or null. */
export function alarmOf(stub: DurableObjectStub): Promise<number | null> {
  return runInDurableObject(stub, (_object: unknown, state: DurableObjectState) => state.storage.getAlarm());
}

/** How many requests wait inside a ledger shard for this call to change (duplicates joining it, long-polls). */
export function waitersOn(shard: DurableObjectStub, callId: string): Promise<number> {
  return runInDurableObject(
    shard,
    (ledger: unknown) => (ledger as LedgerInside).waiters.byKey.get(callKey(callId))?.size ?? 0,
  );
}

/** A call row's deadline in its shard: a running call's lease end, a pending call's approval expiry. */
export function deadlineOf(shard: DurableObjectStub, callId: string): Promise<number | null> {
  return runInDurableObject(shard, (_ledger: unknown, state: DurableObjectState) => {
    const rows = state.storage.sql
      .exec<{ deadline: number | null }>("SELECT deadline FROM calls WHERE call_id = ?", callId)
      .toArray();
    if (rows.length === 0) throw new Error(`no row for ${callId}`);
    return rows[0]!.deadline;
  });
}

/** Until the clock passes a call row's deadline; at once when it has none left (its alarm already ended it). */
export async function untilDeadline(shard: DurableObjectStub, callId: string): Promise<void> {
  const at = await deadlineOf(shard, callId);
  if (at !== null) await waitPast(at);
}
