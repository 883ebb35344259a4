import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { withListedTools, withRemoteTools } from "../tenant/live-adapters";
import { bundledConfig, type BundledConfig } from "../tenant/bundled-config";
import type { Catalog } from "../tenant/catalog";
import type { AppEnv } from "../env";
import { waitUntilOf } from "../execution";
import { preparePrecomputed } from "../tenant/listings/precomputed";
import type { Tenant } from "../tenant/tenant";
import { readyTenant } from "../tenant/ready";
import { endpointView, unscoped } from "../endpoints/view";
import { callerView } from "../code-mode/mode";

/**
 * The tenant as this request's route sees it: a curated endpoint's view on /mcp/<name>, else whole;
 * in code mode, as its caller's (and endpoint's) mode has it.
 */
async function scoped(c: Context<AppEnv>, tenant: Tenant): Promise<Tenant> {
  const endpoint = c.get("endpoint");
  const view = endpoint === undefined ? tenant : await endpointView(tenant, endpoint);
  return callerView(view, c.get("caller"), endpoint === undefined ? undefined : tenant.config.endpoints?.[endpoint]);
}

/**
 * Puts the tenant (parsed once per isolate, its tools taken from `catalog`; `bundled` defaults to
 * the configuration the entry module registered) on c.var; a bad config throws ConfigError → JSON 500.
 */
export function loadTenantFrom(catalog: Catalog, bundled?: BundledConfig) {
  return createMiddleware<AppEnv>(async (c, next) => {
    c.set("tenant", await readyTenant(c.env, bundled ?? bundledConfig(), catalog));
    await next();
  });
}

/**
 * Joins the remote MCP servers' last known tools into the tenant's registry, without waiting for
 * any server (due lists are refreshed after the response). Mounted after the key check, so a
 * request without a valid key never makes toolgate list an upstream.
 */
export const remoteTools = createMiddleware<AppEnv>(async (c, next) => {
  c.set("tenant", await scoped(c, withRemoteTools(unscoped(c.get("tenant")), c.env, waitUntilOf(c))));
  await next();
});

/**
 * For a request that needs the remote tools: "all" (a listing), or the names it calls. Calls wait
 * only when a name is not among the tools known now (it may be a remote tool not listed yet); the
 * wait is bounded (LIST_WAIT_MS) and only for servers whose first list has not arrived.
 */
export async function needRemoteTools(c: Context<AppEnv>, need: "all" | readonly string[]): Promise<Tenant> {
  const registry = c.get("tenant").registry;
  if (need === "all" || !need.every((name) => registry.has(name))) {
    c.set("tenant", await scoped(c, await withListedTools(unscoped(c.get("tenant")), c.env, waitUntilOf(c))));
  }
  // Declared tools are built on first use (registry.ts): the named ones now, so a bad declaration
  // answers config_invalid (ConfigError) before any call of the request runs.
  if (need !== "all") for (const name of need) c.get("tenant").registry.get(name);
  return c.get("tenant");
}

/** For a listing: every tool, and the tenant's precomputed listings loaded and checked (once per isolate). */
export async function needListing(c: Context<AppEnv>): Promise<Tenant> {
  const tenant = await needRemoteTools(c, "all");
  await preparePrecomputed(tenant);
  return tenant;
}
