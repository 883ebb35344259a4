import type { Tool } from "../../src/tool";
import { logLine } from "../log";
import { withPolicy } from "../registry";
import { resolveSecrets, type Tenant } from "../tenant";
import type { StaticAdapters } from "./build";
import { createPinStore, type PinsNamespace } from "./pins";
import { createRemoteTools, type RemoteTools, type WaitUntil } from "./remote";

/** A tenant's adapters: built with its configuration, plus the remote tools once a request needs them. */
export interface TenantAdapters extends StaticAdapters {
  remote?: RemoteTools;
  /** The last tenant view handed out, reused while no server's tool list changed. */
  view?: { parts: readonly Tool[][]; tenant: Tenant };
}

/** The remote servers' tools joined to the tenant's own (which win a name clash), with the tenant's policy overrides. */
function registryWith(tenant: Tenant, parts: readonly Tool[][]): Tenant["registry"] {
  const taken = new Set(tenant.registry.list().map((tool) => tool.name));
  const extra: Tool[] = [];
  parts.forEach((tools, i) => {
    for (const tool of tools) {
      if (taken.has(tool.name)) {
        logLine({ msg: "mcp_tool_skipped", server: tenant.adapters.servers[i]!.declaration.name, tool: tool.name, why: "name already taken" });
        continue;
      }
      taken.add(tool.name);
      const override = tenant.config.policies[tool.name];
      extra.push(override ? withPolicy(tool, override) : tool);
    }
  });
  return tenant.registry.with(extra);
}

/** The tenant each view extends (a view passed in again resolves to its tenant). */
const bases = new WeakMap<Tenant, Tenant>();

function remoteOf(tenant: Tenant, env: Record<string, unknown>): RemoteTools {
  return (tenant.adapters.remote ??= createRemoteTools(tenant.adapters, {
    secrets: resolveSecrets(tenant.config, env),
    ...(env.ADAPTER_PINS ? { pins: createPinStore(env.ADAPTER_PINS as PinsNamespace, tenant.name) } : {}),
  }));
}

/**
 * A view of the tenant with these remote tools, rebuilt only when a server's list changed (TTL
 * expiry or list_changed), so per-format listings stay cached in between.
 */
function viewWith(tenant: Tenant, parts: Tool[][]): Tenant {
  const last = tenant.adapters.view;
  if (last && last.parts.length === parts.length && last.parts.every((tools, i) => tools === parts[i])) return last.tenant;
  const view: Tenant = { ...tenant, registry: registryWith(tenant, parts), listings: new Map() };
  bases.set(view, tenant);
  tenant.adapters.view = { parts, tenant: view };
  return view;
}

/**
 * The tenant as this request sees it, at once: with its remote MCP servers' last known tools (due
 * lists are refreshed behind the request, under waitUntil). Without MCP servers, the tenant itself.
 */
export function withRemoteTools(tenant: Tenant, env: Record<string, unknown>, waitUntil?: WaitUntil): Tenant {
  const base = bases.get(tenant) ?? tenant;
  if (base.adapters.servers.length === 0) return base;
  return viewWith(base, remoteOf(base, env).known(waitUntil));
}

/**
 * The same for a request that needs the lists (a listing, a call to a name not known yet): waits,
 * at most LIST_WAIT_MS, for servers whose first list has not arrived.
 */
export async function withListedTools(tenant: Tenant, env: Record<string, unknown>, waitUntil?: WaitUntil): Promise<Tenant> {
  const base = bases.get(tenant) ?? tenant;
  if (base.adapters.servers.length === 0) return base;
  return viewWith(base, await remoteOf(base, env).settled(waitUntil));
}
