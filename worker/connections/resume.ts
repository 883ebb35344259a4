import type { OpCall } from "./lazy/entry";
import { identityLibrary } from "../identity-library";
import type { LedgerEntry } from "../ledger/types";
import type { Tenant } from "../tenant/tenant";
import { type ConnectionsNamespace, userConnections } from "./address";

/**
 * Calls parked for want of a connection wait in the ledger under the question `connect:<name>`; the
 * user's Connections object keeps a row per parked call (the library's lazy/parked.ts). Only tenants
 * with `connections` get here.
 */

/** Runs operation `call` in the Connections object of `userId` (lazy/ops.ts). */
export async function userConnectionsOp(env: unknown, tenant: string, userId: string, ...call: OpCall) {
  const key = await (await identityLibrary()).userKey(tenant, userId);
  return userConnections(env as { CONNECTIONS: ConnectionsNamespace }, tenant, key).run(...call);
}

/**
 * A waiting call was cancelled (POST /v1/calls/:id/cancel, tasks/cancel): in a tenant with connections,
 * the row of its user's object that parks it goes. Best effort: a row left over ends with its deadline.
 */
export async function unparkCancelled(
  env: unknown,
  tenant: Pick<Tenant, "name" | "config">,
  { record, user }: LedgerEntry,
): Promise<void> {
  if (tenant.config.connections && user)
    await userConnectionsOp(env, tenant.name, user.id, "unpark", record.callId).catch(() => undefined);
}
