import { Hono } from "../hono-lazy";
import type { MetricsRange } from "../../src/contract/metrics";
import { callDurable } from "../durable/call";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { tenantLedger } from "../ledger/address";
import { requireScope } from "../middleware/auth";
import { telemetryLibrary } from "../telemetry-library";

const RANGE_NAMES: readonly string[] = ["hour", "day", "week"];

/**
 * GET /v1/metrics?range=hour|day|week (admin; default hour): the tenant's calls over the range, per
 * tool and per gate, from the per-minute metrics each ledger shard rolls up as calls end. Summing
 * them is the telemetry library's, loaded on the first read.
 */
export const metrics = new Hono<AppEnv>().get("/", requireScope("admin"), async (c) => {
  const range = c.req.query("range") ?? "hour";
  if (!RANGE_NAMES.includes(range)) throw new ApiError(400, "invalid_query", 'range must be "hour", "day" or "week".');
  const library = await telemetryLibrary();
  const { spanMs, stepMs } = library.RANGES[range as MetricsRange];
  const to = Date.now();
  const shards = await tenantLedger(c.env, c.var.tenant.name).all();
  const parts = await Promise.all(
    shards.map((stub) => callDurable(stub, (ledger) => ledger.metrics(to - spanMs, to, stepMs))),
  );
  c.header("cache-control", "no-store");
  return c.json(library.summarize(range as MetricsRange, to, parts));
});
