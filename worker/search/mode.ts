import type { Registry } from "../../src/registry";
import type { Tenant } from "../tenant/tenant";
import type { SearchConfig } from "./config";
import { preparedSearchIndex } from "./prebuilt";
import { tenantScope } from "./setup";
import { searchRun, type SearchScope } from "./tool";
import { withReplaced } from "../tenant/replaced-tool";

/** What search mode reads of a caller (worker/env.ts Caller). */
interface Caller {
  keyName: string;
  tools?: ReadonlySet<string>;
}

/** Whether this caller's listings are in search mode. */
export function inSearchMode(search: SearchConfig, caller: Pick<Caller, "keyName">): boolean {
  return search.keys === undefined || search.keys.includes(caller.keyName);
}

/**
 * The tools a caller's listings show: in search mode the search tool and the pinned tools it may
 * use; else its allow-list (undefined: every tool).
 */
export function listedTools(
  tenant: Tenant,
  caller: Pick<Caller, "keyName" | "tools">,
): ReadonlySet<string> | undefined {
  const { search } = tenant.config;
  if (!search || !inSearchMode(search, caller)) return caller.tools;
  const allowed = caller.tools;
  return new Set([search.tool, ...search.pinned.filter((name) => !allowed || allowed.has(name))]);
}

/** Whether a caller with an allow-list may call this tool: its list, and the tenant's search tool. */
export function allowedBy(tenant: Tenant, tools: ReadonlySet<string>, name: string): boolean {
  return tools.has(name) || name === tenant.config.search?.tool;
}

/**
 * The registry a request's calls run with: the search tool bound to this tenant view (with its remote
 * tools) and, for a caller with an allow-list, to that list (a search never shows a tool the caller
 * may not use). Other tenants' registry is the tenant's own.
 */
export function callerRegistry(tenant: Tenant, caller: Pick<Caller, "tools">): Registry {
  const { search } = tenant.config;
  if (!search) return tenant.registry;
  const tool = tenant.registry.get(search.tool);
  if (!tool) return tenant.registry;
  const allowed = caller.tools;
  const scope: SearchScope = {
    ...tenantScope(() => tenant, search),
    index: () => preparedSearchIndex(tenant),
    visible: (name) => name !== search.tool && (!allowed || allowed.has(name)),
  };
  return withReplaced(tenant.registry, Object.freeze({ ...tool, run: searchRun(search, scope) }));
}
