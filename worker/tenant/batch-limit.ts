import type { TenantConfig } from "./config";

/**
 * The one bound on what a single request may make run: the calls of POST /v1/calls and the messages
 * of an MCP JSON-RPC batch, both `limits.maxCallsPerBatch` (DEFAULT_LIMITS: 128). A request over it
 * is refused whole, before anything runs.
 */
export function overBatchLimit(config: TenantConfig, count: number, what: string): string | undefined {
  const limit = config.limits.maxCallsPerBatch;
  if (count <= limit) return undefined;
  return `${count} ${what} in one request; the limit is ${limit}.`;
}
