/**
 * What the ledger keeps in the bundle of the export of a tenant's metrics: the storage key that says its
 * map object runs one. The export itself is in the telemetry library
 * (worker/telemetry/lazy/metrics-schedule.ts), loaded only where a tenant configures it.
 */
import type { ExportSlot, ExportState } from "../telemetry/lazy/metrics-schedule";

export type { MetricsShard } from "../telemetry/lazy/metrics-schedule";

const KEY = "metrics-export";

/** The map object's export state, in its storage. */
export function exportSlot(storage: DurableObjectStorage): ExportSlot {
  return {
    get: () => storage.get<ExportState>(KEY),
    put: (state) => storage.put(KEY, state),
    delete: () => storage.delete(KEY),
  };
}
