import type { JsonValue } from "../../src/json";
import type { CallRecord } from "../../src/result";
import type { Bindings } from "../env";
import { identityLibrary } from "../identity-library";
import { tenantLedger } from "../ledger/address";
import type { LedgerEntry } from "../ledger/types";
import { tenantRunners } from "../runner/address";
import { answerCall } from "../runner/answer";
import type { Tenant } from "../tenant/tenant";
import { type ConnectionsNamespace, userConnections } from "./address";

/**
 * Calls parked for want of a connection (the library's lazy/parked.ts keeps their rows): they wait in
 * the ledger under the question `connect:<name>`, and run on once it is answered "accept", as a caller's
 * answer would (worker/runner/answer.ts). Only tenants with `connections` get here.
 */

const CONNECT_KEY = /^connect:([a-z][a-z0-9_-]{0,31})$/;

/** The answer to a parked call's question: the user connected. */
const connected = (connection: string): Record<string, JsonValue> => ({ [`connect:${connection}`]: { action: "accept" } });

/** The connection a waiting record is parked on (its open question `connect:<name>`), or undefined. */
export function parkedOn(record: CallRecord): string | undefined {
  for (const key of Object.keys(record.error?.inputRequests ?? {})) {
    const name = CONNECT_KEY.exec(key)?.[1];
    if (name !== undefined) return name;
  }
  return undefined;
}

/** The connect's callback: each parked call's question is answered, and its Runner runs it on. */
export async function resumeParked(
  env: Bindings,
  tenant: string,
  connection: string,
  callIds: readonly string[],
): Promise<void> {
  const ledger = tenantLedger(env, tenant);
  const runners = env.RUNNERS ? tenantRunners({ RUNNERS: env.RUNNERS }, tenant) : undefined;
  // Viewer null: the ids come from the user's own object, where only their calls' runs put them.
  const answer = (id: string) => answerCall(ledger, runners, id, null, connected(connection)).catch(() => undefined);
  await Promise.all(callIds.map(answer));
}

/** The user's Connections object, by their id. */
async function objectOf(env: unknown, tenant: string, userId: string) {
  const key = await (await identityLibrary()).userKey(tenant, userId);
  return userConnections(env as { CONNECTIONS: ConnectionsNamespace }, tenant, key);
}

/**
 * A Runner's run ended parked on `connection`: the answers to give it now when the user connected
 * meanwhile (before the call waited, the callback could not resume it), else undefined.
 */
export async function connectedWhileParking(
  env: unknown,
  tenant: string,
  userId: string,
  callId: string,
  connection: string,
): Promise<Record<string, JsonValue> | undefined> {
  const ready = await (await objectOf(env, tenant, userId)).run("parkedReady", callId);
  return ready === true ? connected(connection) : undefined;
}

/**
 * A waiting call was cancelled (POST /v1/calls/:id/cancel, tasks/cancel): in a tenant with connections,
 * the row of its user's object that parks it goes. Best effort: a row left over ends with its deadline.
 */
export async function unparkCancelled(
  env: unknown,
  tenant: Pick<Tenant, "name" | "config">,
  entry: Pick<LedgerEntry, "record" | "user">,
): Promise<void> {
  const userId = entry.user?.id;
  if (!tenant.config.connections || userId === undefined) return;
  const object = await objectOf(env, tenant.name, userId).catch(() => undefined);
  await object?.run("unpark", entry.record.callId).catch(() => undefined);
}
