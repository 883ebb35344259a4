import { Hono } from "../hono-lazy";
import type { AppEnv } from "../env";
import { callDurable } from "../durable/call";
import { ApiError } from "../errors";
import { tenantGates } from "../gates/address";
import { requireScope } from "../middleware/auth";

const PAGE_MAX = 100;

/**
 * GET /v1/gates (admin): every gate of the tenant with its limit, holders and queue depth, a page
 * at a time (`?after=<last gate>&limit=`). Gates appear once they have seen their first call.
 */
export const gates = new Hono<AppEnv>().get("/", requireScope("admin"), async (c) => {
  const limit = Number(c.req.query("limit") ?? PAGE_MAX);
  if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_MAX) {
    throw new ApiError(400, "invalid_query", `limit must be an integer from 1 to ${PAGE_MAX}.`);
  }
  const gates = tenantGates(c.env, c.var.tenant.name);
  const page = await callDurable(
    () => gates.index(),
    (stub) => stub.list(c.req.query("after") ?? "", limit),
  );
  const gate = (name: string) => () => gates.for(name);
  const snapshots = await Promise.all(page.gates.map((name) => callDurable(gate(name), (stub) => stub.snapshot())));
  return c.json({ gates: snapshots, ...(page.next === undefined ? {} : { next: page.next }) });
});
