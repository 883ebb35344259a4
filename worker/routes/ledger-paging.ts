import type { Context } from "hono";
import { callDurable } from "../durable/call";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { tenantLedger } from "../ledger/address";
import type { LedgerEntry, ListQuery } from "../ledger/types";

/** An integer query parameter in [min, max], or the default when absent; 400 otherwise. */
export function intParam(value: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ApiError(400, "invalid_query", `${name} must be an integer from ${min} to ${max}.`);
  }
  return n;
}

/** ?since= as epoch milliseconds or an ISO date. */
export function timeParam(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  const n = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(n))
    throw new ApiError(400, "invalid_query", `${name} must be epoch milliseconds or an ISO date.`);
  return n;
}

type Cursor = { startedAt: number; callId: string };

function encodeCursor(entry: LedgerEntry): string {
  return btoa(JSON.stringify([entry.record.startedAt, entry.record.callId])).replace(/=+$/, "");
}

export function decodeCursor(value: string | undefined): Cursor | undefined {
  if (value === undefined || value === "") return undefined;
  try {
    const [startedAt, callId] = JSON.parse(atob(value)) as unknown[];
    if (typeof startedAt === "number" && typeof callId === "string") return { startedAt, callId };
  } catch {
    // answered below
  }
  throw new ApiError(400, "invalid_query", "cursor is not one this API gave out.");
}

/**
 * A page of the tenant's calls, newest first across its ledger shards: each shard gives its newest
 * `limit` below the cursor, so the newest `limit` of their union is exactly the next page.
 */
export async function listNewest(
  c: Context<AppEnv>,
  query: ListQuery,
): Promise<{ entries: LedgerEntry[]; nextCursor: string | null }> {
  const shards = await tenantLedger(c.env, c.var.tenant.name).all();
  const pages = await Promise.all(shards.map((stub) => callDurable(stub, (ledger) => ledger.list(query))));
  const entries = pages
    .flat()
    .sort(
      (a, b) =>
        b.record.startedAt - a.record.startedAt ||
        (a.record.callId < b.record.callId ? 1 : a.record.callId > b.record.callId ? -1 : 0),
    )
    .slice(0, query.limit);
  const full = entries.length > 0 && entries.length === query.limit;
  return { entries, nextCursor: full ? encodeCursor(entries[entries.length - 1]!) : null };
}
