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

/** The code tool of this view's callers (docs/code-mode.md), and whether it is all their listings show. */
function codeToolOf(tenant: Tenant): { tool: string; only: boolean } | undefined {
  const code = tenant.config.codeMode;
  if (!code || !tenant.registry.has(code.tool)) return undefined;
  return { tool: code.tool, only: code.default === "only" };
}

/**
 * The tools a caller's listings show: in code mode "only" the code tool; in search mode the search
 * tool and the pinned tools it may use; else its allow-list, and the code tool (undefined: every tool).
 */
export function listedTools(
  tenant: Tenant,
  caller: Pick<Caller, "keyName" | "tools">,
): ReadonlySet<string> | undefined {
  const { search } = tenant.config;
  const code = codeToolOf(tenant);
  if (code?.only) return new Set([code.tool]);
  if (!search || !inSearchMode(search, caller))
    return code && caller.tools ? new Set([...caller.tools, code.tool]) : caller.tools;
  const allowed = caller.tools;
  return new Set([search.tool, ...search.pinned.filter((name) => !allowed || allowed.has(name))]);
}

/**
 * Whether a caller with an allow-list may call this tool: its list, the tenant's search tool, and its
 * view's code tool (whose API is its list).
 */
export function allowedBy(tenant: Tenant, tools: ReadonlySet<string>, name: string): boolean {
  return tools.has(name) || name === tenant.config.search?.tool || name === codeToolOf(tenant)?.tool;
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
