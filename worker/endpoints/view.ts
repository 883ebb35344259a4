import { createRegistry, type Registry } from "../../src/registry";
import type { Tool } from "../../src/tool";
import { endpointsLibrary } from "../endpoints-library";
import { ConfigError } from "../errors";
import { createSearchTool } from "../search/tool";
import { tenantScope } from "../search/setup";
import type { TenantConfig } from "../tenant/config";

/**
 * What an endpoint view reads of a tenant view (worker/tenant/tenant.ts Tenant, which imports this
 * file's callers, so its shape is stated here).
 */
interface Tenant {
  registry: Registry;
  listings: Map<string, unknown>;
  config: TenantConfig;
  adapters: { servers: readonly { declaration: { name: string; prefix: string; url: string } }[] };
  precomputed?: unknown;
}

/** Per tenant view (with its remote tools), its endpoints' views, made on first use. */
const views = new WeakMap<object, Map<string, object>>();
/** The tenant view each endpoint view was made from. */
const wholeOf = new WeakMap<object, object>();

/** Notes that `view` was made from `base` (a caller's code-mode view): unscoped(view) is base's whole. */
export function scopedFrom(view: object, base: object): void {
  wholeOf.set(view, wholeOf.get(base) ?? base);
}

/** The tenant view an endpoint view was made from; any other view is its own. */
export function unscoped<T extends Tenant>(tenant: T): T {
  return (wholeOf.get(tenant) as T | undefined) ?? tenant;
}

const fail = (message: string): never => {
  throw new ConfigError(message);
};

/**
 * The tenant as one of its endpoints sees it: only the selected tools (others are unknown there, as a
 * tool that does not exist is), each built from the tenant's on first use, the endpoint's search mode
 * and its search tool, its own listings. Kept per tenant view, so a view with new remote tools makes
 * new endpoint views. The checks and the selection are a module of their own (endpoints-library.ts),
 * loaded on a tenant's first endpoint request. Throws ConfigError naming the field.
 */
export async function endpointView<T extends Tenant>(whole: T, name: string): Promise<T> {
  const found = views.get(whole)?.get(name) as T | undefined;
  if (found) return found;
  const endpoint = whole.config.endpoints?.[name];
  if (!endpoint) throw new ConfigError(`endpoints.${name}: no such endpoint`);
  const { checkEndpoints, selectEndpoint } = await endpointsLibrary();
  const servers = whole.adapters.servers.map(({ declaration }) => ({
    name: declaration.name,
    prefix: declaration.prefix,
  }));
  checkEndpoints(whole.config, { offered: new Set(whole.registry.names()), servers }, fail);
  // Its code tool, if its callers get one, declares its own tools (worker/code-mode/mode.ts callerView).
  const names = selectEndpoint(whole, name, endpoint, fail).filter((tool) => tool !== whole.config.codeMode?.tool);
  const { precomputed: _, ...own } = whole;
  const { search: __, ...config } = whole.config;
  const { search } = endpoint;
  const view = { ...own, config: search ? { ...config, search } : config, listings: new Map() } as T;
  const tools: (Tool | { name: string; build(): Tool })[] = names.map((tool) => ({
    name: tool,
    build: () => whole.registry.get(tool)!,
  }));
  if (search)
    tools.push(
      createSearchTool(
        search,
        tenantScope(() => view, search),
      ),
    );
  view.registry = createRegistry(tools);
  wholeOf.set(view, whole);
  let kept = views.get(whole);
  if (!kept) views.set(whole, (kept = new Map()));
  kept.set(name, view);
  return view;
}

/** Every endpoint of the tenant checked and its selection made: what a deploy runs (scripts/tools-check.ts). */
export async function checkEndpointViews(tenant: Tenant): Promise<void> {
  for (const name of Object.keys(tenant.config.endpoints ?? {})) await endpointView(tenant, name);
}
