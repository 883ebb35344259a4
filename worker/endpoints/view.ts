import { createRegistry, type Registry } from "../../src/registry";
import type { Tool } from "../../src/tool";
import { ConfigError } from "../errors";
import { createSearchTool } from "../search/tool";
import { tenantScope } from "../search/setup";
import type { TenantConfig } from "../tenant/config";
import type { EndpointConfig } from "./config";

/**
 * What an endpoint view reads of a tenant view (worker/tenant/tenant.ts Tenant, which imports this
 * file for checkTenant, so its shape is stated here).
 */
interface Tenant {
  registry: Registry;
  listings: Map<string, unknown>;
  config: TenantConfig;
  adapters: { servers: readonly { declaration: { name: string; prefix: string; url: string } }[] };
  precomputed?: unknown;
}

/** Per tenant view (with its remote tools), its endpoints' views, built on first use. */
const views = new WeakMap<object, Map<string, object>>();
/** The tenant view each endpoint view was made from. */
const wholeOf = new WeakMap<object, object>();

/** The tenant view an endpoint view was made from; any other view is its own. */
export function unscoped<T extends Tenant>(tenant: T): T {
  return (wholeOf.get(tenant) as T | undefined) ?? tenant;
}

/** The names of `whole`'s tools one selection entry takes, in the tenant's order. Throws naming the entry. */
function namesOf(whole: Tenant, entry: string, where: string): string[] {
  const all = whole.registry.names();
  if (entry === "*") return [...all];
  if (entry.startsWith("tag:")) {
    const tag = entry.slice("tag:".length);
    const tagged = whole.registry.list().filter((tool) => tool.tags?.includes(tag));
    if (tagged.length === 0) throw new ConfigError(`${where}: no tool has the tag "${tag}"`);
    return tagged.map((tool) => tool.name);
  }
  if (entry.startsWith("server:")) {
    const server = whole.adapters.servers.find((s) => s.declaration.name === entry.slice("server:".length));
    if (!server) return [];
    const { prefix, url } = server.declaration;
    // Its tools are the ones it listed: under its prefix, from its URL (a local tool of that prefix is not).
    return all.filter((name) => name.startsWith(prefix) && whole.registry.get(name)?.source === `mcp:${url}`);
  }
  // A remote tool not listed yet is not in the view until its server lists it.
  return whole.registry.has(entry) ? [entry] : [];
}

/**
 * The endpoint's registry: the tools its selection names (never the tenant's own search tool), each
 * built from the tenant's on first use, plus the endpoint's search tool when it has search mode.
 */
function selection(whole: Tenant, view: () => Tenant, name: string, endpoint: EndpointConfig): Registry {
  const field = `endpoints.${name}`;
  const chosen = new Set<string>();
  endpoint.tools.forEach((entry, i) => {
    for (const tool of namesOf(whole, entry, `${field}.tools[${i}]`)) chosen.add(tool);
  });
  chosen.delete(whole.config.search?.tool ?? "");
  const names = whole.registry.names().filter((tool) => chosen.has(tool));
  const entries: (Tool | { name: string; build(): Tool })[] = names.map((tool) => ({
    name: tool,
    build: () => whole.registry.get(tool)!,
  }));
  const { search } = endpoint;
  if (!search) return createRegistry(entries);
  if (chosen.has(search.tool))
    throw new ConfigError(`${field}.search.tool: "${search.tool}" is one of the endpoint's tools; choose another`);
  const remote = whole.adapters.servers.map((server) => server.declaration.prefix);
  search.pinned.forEach((pinned, i) => {
    if (chosen.has(pinned) || (!whole.registry.has(pinned) && remote.some((prefix) => pinned.startsWith(prefix))))
      return;
    throw new ConfigError(`${field}.search.pinned[${i}]: "${pinned}" is not one of the endpoint's tools`);
  });
  return createRegistry([...entries, createSearchTool(search, tenantScope(view, search))]);
}

/**
 * The tenant as one of its endpoints sees it: only the selected tools (others are unknown there, as a
 * tool that does not exist is), the endpoint's search mode, its own listings. Kept per tenant view, so a
 * view with new remote tools makes new endpoint views. Throws ConfigError naming the field.
 */
export function endpointView<T extends Tenant>(whole: T, name: string): T {
  let kept = views.get(whole);
  const found = kept?.get(name) as T | undefined;
  if (found) return found;
  const endpoint = whole.config.endpoints?.[name];
  if (!endpoint) throw new ConfigError(`endpoints.${name}: no such endpoint`);
  const { precomputed: _, ...own } = whole;
  const { search: __, ...config } = whole.config;
  const view = {
    ...own,
    config: endpoint.search ? { ...config, search: endpoint.search } : config,
    registry: createRegistry([]),
    listings: new Map(),
  } as T;
  view.registry = selection(whole, () => view, name, endpoint);
  wholeOf.set(view, whole);
  if (!kept) views.set(whole, (kept = new Map()));
  kept.set(name, view);
  return view;
}
