/**
 * The export of a tenant's metrics over OTLP, run by the alarm of the tenant's ledger map object (one
 * object per tenant: one exporter, whatever the number of shards or isolates). A Worker isolate serving
 * a tenant with `telemetry.metrics` starts it once (startMetricsExport); each alarm then reads the
 * tenant's configuration again, sends the minutes that ended since the last export, read from every
 * shard, and sets the next alarm. A tenant whose configuration no longer has it stops.
 */
import { MINUTE_MS } from "../../../src/telemetry/histogram";
import type { MetricsExportConfig } from "../config";
import { metricsOf, sendMetrics } from "./metrics-export";
import type { ShardMetrics } from "./metrics-read";

/** What the export reads of each shard. */
export interface MetricsShard {
  metrics(from: number, to: number, stepMs: number): Promise<ShardMetrics>;
}

/** The tenant's shards that may hold metrics (every live version's), given its first shard count. */
export type ShardsOf = (tenant: string, initialShards: number) => Promise<MetricsShard[]>;

/** Where the map object keeps its export's state (one storage key: the ledger's METRICS_EXPORT_KEY). */
export interface ExportSlot {
  get(): Promise<ExportState | undefined>;
  put(state: ExportState): Promise<void>;
  delete(): Promise<unknown>;
}

/** The tenant the Worker serves with this env (readyTenant, handed in: the bundle has it). */
export type TenantOf = (
  env: Record<string, unknown>,
) => Promise<{ name: string; config: { telemetry?: { metrics?: MetricsExportConfig } | undefined } }>;

/** What the map object keeps of its export. */
export interface ExportState {
  tenant: string;
  /** A local configuration override (TOOLGATE_CONFIG) the starting request had; deployed tenants bundle theirs. */
  config?: string;
  /** The tenant's shard count when its ledger began (LEDGER_SHARDS): its shard map's first version. */
  initialShards: number;
  /** The last minute sent (floor(ms / 60000)). */
  last: number;
  /** Minutes never sent: beyond the catch-up after the collector was down. */
  droppedMinutes: number;
}

/** Most minutes one export catches up on; older ones are dropped and counted. */
export const CATCH_UP_MINUTES = 60;

/**
 * Starts the tenant's export unless it runs (this object then keeps it). Answers when to wake first, or
 * null when it was running already: its alarm is set.
 */
export async function startMetricsExport(
  slot: ExportSlot,
  tenant: string,
  config: string | undefined,
  initialShards: number,
  intervalMs: number,
  now: number,
): Promise<number | null> {
  const state = await slot.get();
  if (state?.tenant === tenant && state.config === config) return null;
  // The minutes before the start are in the ledger too: the first export sends the last one.
  const last = state?.last ?? Math.floor(now / MINUTE_MS) - 2;
  const droppedMinutes = state?.droppedMinutes ?? 0;
  await slot.put({ tenant, initialShards, last, droppedMinutes, ...(config ? { config } : {}) });
  return now + intervalMs;
}

/** The alarm's part: sends what is due; answers when to wake next, or null when there is no export. */
export async function exportDueMetrics(
  slot: ExportSlot,
  env: Record<string, unknown>,
  tenantOf: TenantOf,
  shardsOf: ShardsOf,
  now: number,
): Promise<number | null> {
  const state = await slot.get();
  if (!state) return null;
  const local = state.config === undefined ? env : { ...env, TOOLGATE_CONFIG: state.config };
  const tenant = await tenantOf(local).catch(() => undefined);
  const config = tenant?.name === state.tenant ? tenant.config.telemetry?.metrics : undefined;
  if (!tenant || !config) {
    await slot.delete();
    return null;
  }
  const next = now + config.intervalSeconds * 1000;
  const to = Math.floor(now / MINUTE_MS) - 1; // the last minute that has ended
  let from = state.last + 1;
  if (to - from + 1 > CATCH_UP_MINUTES) {
    state.droppedMinutes += to - from + 1 - CATCH_UP_MINUTES;
    from = to - CATCH_UP_MINUTES + 1;
    state.last = from - 1; // given up: never counted as dropped again
  }
  if (from > to) return next;
  const headers: Record<string, string> = {};
  for (const [header, secret] of Object.entries(config.headers)) {
    const value = env[secret];
    if (typeof value !== "string" || value === "") {
      logFailure(state.tenant, `telemetry.metrics.headers.${header}: the Worker secret "${secret}" is not set`);
      return next;
    }
    headers[header] = value;
  }
  try {
    const shards = await shardsOf(state.tenant, state.initialShards);
    const read = await Promise.all(shards.map((shard) => shard.metrics(from * MINUTE_MS, to * MINUTE_MS, MINUTE_MS)));
    const metrics = metricsOf(read, now);
    if (metrics.length > 0)
      await sendMetrics(metrics, {
        tenant: state.tenant,
        config,
        headers,
        droppedMinutes: state.droppedMinutes,
      });
    state.last = to;
  } catch (error) {
    // Kept for the next alarm: the same minutes are sent again (up to the catch-up), never twice once sent.
    logFailure(state.tenant, error instanceof Error ? error.message : String(error));
  }
  await slot.put(state);
  return next;
}

function logFailure(tenant: string, error: string): void {
  console.warn(JSON.stringify({ msg: "metrics export failed", tenant, error }));
}
