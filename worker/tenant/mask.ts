import type { Context } from "hono";
import { createTextMasker } from "../../src/mask";
import type { AppEnv } from "../env";

/**
 * The tenant's secret values as a text masker, for text that reaches records or logs without the
 * pipeline (causes of internal errors, cancel and approval reasons). Mask before cutting such text.
 */
export function tenantTextMasker(c: Context<AppEnv>): (text: string) => string {
  const env = c.env as Record<string, unknown>;
  const names = c.var.tenant ? Object.values(c.var.tenant.config.secrets) : [];
  return createTextMasker(names.map((name) => env[name]).filter((value): value is string => typeof value === "string"));
}
