import type { Tool } from "../../src/tool";
import { logLine } from "../log";
import { withPolicy } from "../registry";
import { resolveSecrets, type Tenant } from "../tenant";
import type { StaticAdapters } from "./build";
import { createPinStore, type PinsNamespace } from "./pins";
import { createRemoteTools, type RemoteTools } from "./remote";

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

/**
 * The tenant as this request sees it: with its remote MCP servers' current tools. Without MCP
 * servers it is the cached tenant itself; otherwise a view that is rebuilt only when a server's
 * list changed (TTL expiry or list_changed), so per-format listings stay cached in between.
 */
export async function withRemoteTools(tenant: Tenant, env: Record<string, unknown>): Promise<Tenant> {
  const adapters = tenant.adapters;
  if (adapters.servers.length === 0) return tenant;
  adapters.remote ??= createRemoteTools(adapters, {
    secrets: resolveSecrets(tenant.config, env),
    ...(env.ADAPTER_PINS ? { pins: createPinStore(env.ADAPTER_PINS as PinsNamespace, tenant.name) } : {}),
  });
  const parts = await adapters.remote.current();
  const last = adapters.view;
  if (last && last.parts.length === parts.length && last.parts.every((tools, i) => tools === parts[i])) return last.tenant;
  const view: Tenant = { ...tenant, registry: registryWith(tenant, parts), listings: new Map() };
  adapters.view = { parts, tenant: view };
  return view;
}
