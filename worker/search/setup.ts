import type { Registry } from "../../src/registry";
import type { Tool } from "../../src/tool";
import { searchLibrary, type ToolIndex } from "../search-library";
import type { SearchConfig } from "./config";
import { createSearchTool, type SearchScope } from "./tool";

/** What search reads of a tenant view (worker/tenant/tenant.ts Tenant, which builds its search tool here). */
export interface SearchedTenant {
  registry: Registry;
  listings: Map<string, unknown>;
  config: { deny: readonly string[]; search?: SearchConfig | undefined };
}

const INDEX = "search:index";

/** Whether the tenant view's search index is made (or being made). */
export function hasSearchIndex(tenant: SearchedTenant): boolean {
  return tenant.listings.has(INDEX);
}

/** The tools a tenant view's search index holds: every tool but the search tool and the denied ones. */
export function indexedTools(tenant: SearchedTenant): Tool[] {
  const deny = new Set(tenant.config.deny);
  return tenant.registry.list().filter((tool) => tool.name !== tenant.config.search?.tool && !deny.has(tool.name));
}

/**
 * The search index of a tenant view's tools (indexedTools), made on the first search and kept with
 * the view's listings: a view with remote MCP tools is a new view when they change, so its index is
 * new too. `prebuilt` is the build's index text (a bundled tenant's): read rather than built when it
 * is one of these tools.
 */
export function tenantSearchIndex(tenant: SearchedTenant, prebuilt?: string): Promise<ToolIndex> {
  let index = tenant.listings.get(INDEX) as Promise<ToolIndex> | undefined;
  if (index === undefined) {
    const tools = indexedTools(tenant);
    index = searchLibrary().then(
      ({ buildToolIndex, readToolIndex }) =>
        (prebuilt !== undefined &&
          readToolIndex(
            prebuilt,
            tools.map((tool) => tool.name),
          )) ||
        buildToolIndex(tools),
    );
    tenant.listings.set(INDEX, index);
  }
  return index;
}

/** The scope of a tenant's own search tool: every tool but itself and the denied ones. */
export function tenantScope(tenant: () => SearchedTenant, config: SearchConfig): SearchScope {
  return {
    index: () => tenantSearchIndex(tenant()),
    registry: () => tenant().registry,
    visible: (name) => name !== config.tool,
  };
}

/** The search tool a tenant in search mode offers beside its tools; undefined for other tenants. */
export function searchToolOf(config: SearchedTenant["config"], tenant: () => SearchedTenant): Tool | undefined {
  return config.search ? createSearchTool(config.search, tenantScope(tenant, config.search)) : undefined;
}
