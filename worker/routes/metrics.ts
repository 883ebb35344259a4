import { Hono } from "../hono-lazy";
import type { MetricsRange } from "../../src/contract/metrics";
import { callDurable } from "../durable/call";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { tenantLedger } from "../ledger/address";
import { requireScope } from "../middleware/auth";
import { telemetryLibrary } from "../telemetry-library";

/**
 * GET /v1/metrics?range=hour|day|week (admin; default hour): the tenant's calls over the range, per
 * tool and per gate, from the per-minute metrics each ledger shard rolls up as calls end (summed by
 * the telemetry library, loaded on the first read).
 */
export const metrics = new Hono<AppEnv>().get("/", requireScope("admin"), async (c) => {
  const range = c.req.query("range") ?? "hour";
  if (!["hour", "day", "week"].includes(range))
    throw new ApiError(400, "invalid_query", 'range must be "hour", "day" or "week".');
  const shards = await tenantLedger(c.env, c.var.tenant.name).all();
  const summary = await (await telemetryLibrary()).readMetrics(range as MetricsRange, (from, to, stepMs) =>
    Promise.all(shards.map((stub) => callDurable(stub, (ledger) => ledger.metrics(from, to, stepMs)))),
  );
  c.header("cache-control", "no-store");
  return c.json(summary);
});
