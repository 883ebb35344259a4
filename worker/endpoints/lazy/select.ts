import type { Registry } from "../../../src/registry";
import type { EndpointConfig } from "../config";
import type { Fail } from "./check";

/** What a selection reads of a tenant view (worker/tenant/tenant.ts Tenant, with its remote tools). */
export interface SelectedTenant {
  registry: Pick<Registry, "names" | "list" | "get" | "has">;
  config: { search?: { tool: string } | undefined };
  adapters: { servers: readonly { declaration: { name: string; prefix: string; url: string } }[] };
}

/** The names of `whole`'s tools one selection entry takes. Fails naming the entry. */
function namesOf(whole: SelectedTenant, entry: string, where: string, fail: Fail): readonly string[] {
  const all = whole.registry.names();
  if (entry === "*") return all;
  if (entry.startsWith("tag:")) {
    const tag = entry.slice("tag:".length);
    const tagged = whole.registry.list().filter((tool) => tool.tags?.includes(tag));
    if (tagged.length === 0) fail(`${where}: no tool has the tag "${tag}"`);
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
 * The names of the tools an endpoint offers, in the tenant's order: what its selection names, never
 * the tenant's own search tool. Checks its search mode against them: its search tool's name is none
 * of theirs, and its pinned tools are among them (or remote tools not listed yet). Fails naming the field.
 */
export function selectEndpoint(whole: SelectedTenant, name: string, endpoint: EndpointConfig, fail: Fail): string[] {
  const field = `endpoints.${name}`;
  const chosen = new Set<string>();
  endpoint.tools.forEach((entry, i) => {
    for (const tool of namesOf(whole, entry, `${field}.tools[${i}]`, fail)) chosen.add(tool);
  });
  chosen.delete(whole.config.search?.tool ?? "");
  const { search } = endpoint;
  if (search) {
    if (chosen.has(search.tool))
      fail(`${field}.search.tool: "${search.tool}" is one of the endpoint's tools; choose another`);
    const remote = whole.adapters.servers.map((server) => server.declaration.prefix);
    search.pinned.forEach((pinned, i) => {
      const unlisted = !whole.registry.has(pinned) && remote.some((prefix) => pinned.startsWith(prefix));
      if (!chosen.has(pinned) && !unlisted)
        fail(`${field}.search.pinned[${i}]: "${pinned}" is not one of the endpoint's tools`);
    });
  }
  return whole.registry.names().filter((tool) => chosen.has(tool));
}
