import type { MiddlewareHandler } from "hono";
import { callDurable } from "../durable/call";
import type { AppEnv } from "../env";
import { waitUntilOf } from "../execution";
import { shardCount, tenantLedger } from "../ledger/address";

/** Tenants (and local configuration overrides) whose export this isolate has started. */
const started = new Set<string>();

/**
 * For a tenant with `telemetry.metrics`: once per isolate, starts the export of its metrics on its
 * ledger map object (worker/ledger/metrics-export.ts), in waitUntil. Other tenants pass straight through.
 */
export const metricsExport: MiddlewareHandler<AppEnv> = async (c, next) => {
  const metrics = c.var.tenant.config.telemetry?.metrics;
  if (metrics) {
    const tenant = c.var.tenant.name;
    const override = c.env.TOOLGATE_CONFIG || undefined;
    const key = `${tenant}\n${override ?? ""}`;
    if (!started.has(key)) {
      started.add(key);
      const intervalMs = metrics.intervalSeconds * 1000;
      const start = callDurable(
        () => tenantLedger(c.env, tenant).holder(),
        (holder) => holder.startMetricsExport(tenant, override, shardCount(c.env), intervalMs),
      ).catch(() => void started.delete(key)); // the next request tries again
      waitUntilOf(c)?.(start);
    }
  }
  return next();
};
