import type { Tool } from "../../src/tool";
import { logLine } from "../log";
import { tenantPins, type PinsNamespace } from "../pins/address";
import { createPinStore } from "../pins/store";
import { withPolicy } from "./registry";
import { resolveSecrets, type Tenant } from "./tenant";
import { createRemoteTools, type RemoteTools, type WaitUntil } from "../adapters/remote";

/** What this isolate keeps per tenant beside it: its remote tools once a request needs them. */
interface Live {
  remote: RemoteTools;
  /** The last tenant view handed out, reused while no server's tool list changed. */
  view?: { parts: readonly Tool[][]; tenant: Tenant };
}

/** Per tenant (the cached object, never a view): kept beside it, so the tenant itself is never changed. */
const live = new WeakMap<Tenant, Live>();

/** The tenant each view extends (a view passed in again resolves to its tenant). */
const bases = new WeakMap<Tenant, Tenant>();

/**
 * The remote servers' tools joined to the tenant's own (which win a name clash), with the tenant's policy overrides.
 */
function registryWith(tenant: Tenant, parts: readonly Tool[][]): Tenant["registry"] {
  const taken = new Set(tenant.registry.names());
  const extra: Tool[] = [];
  parts.forEach((tools, i) => {
    for (const tool of tools) {
      if (taken.has(tool.name)) {
        logLine({
          msg: "mcp_tool_skipped",
          server: tenant.adapters.servers[i]!.declaration.name,
          tool: tool.name,
          why: "name already taken",
        });
        continue;
      }
      taken.add(tool.name);
      const override = tenant.config.policies[tool.name];
      extra.push(override ? withPolicy(tool, override) : tool);
    }
  });
  return tenant.registry.with(extra);
}

function liveOf(tenant: Tenant, env: Record<string, unknown>): Live {
  let entry = live.get(tenant);
  if (!entry) {
    const pins = env.ADAPTER_PINS
      ? createPinStore(tenantPins({ ADAPTER_PINS: env.ADAPTER_PINS as PinsNamespace }, tenant.name))
      : undefined;
    const remote = createRemoteTools(tenant.adapters, {
      secrets: resolveSecrets(tenant.config, env),
      ...(pins ? { pins } : {}),
    });
    live.set(tenant, (entry = { remote }));
  }
  return entry;
}

/**
 * The tenant's remote MCP servers as this isolate knows them; undefined before a request
 * needed them (or without servers).
 */
export function remoteToolsOf(tenant: Tenant): RemoteTools | undefined {
  return live.get(bases.get(tenant) ?? tenant)?.remote;
}

/**
 * A view of the tenant with these remote tools, rebuilt only when a server's list changed (TTL
 * expiry or list_changed), so per-format listings stay cached in between.
 */
function viewWith(tenant: Tenant, entry: Live, parts: Tool[][]): Tenant {
  const last = entry.view;
  if (last && last.parts.length === parts.length && last.parts.every((tools, i) => tools === parts[i]))
    return last.tenant;
  // Another registry: its listings are built (the build's precomputed ones are the tenant's own tools').
  const { precomputed: _, ...own } = tenant;
  const view: Tenant = { ...own, registry: registryWith(tenant, parts), listings: new Map() };
  bases.set(view, tenant);
  entry.view = { parts, tenant: view };
  return view;
}

/**
 * The tenant as this request sees it, at once: with its remote MCP servers' last known tools (due
 * lists are refreshed behind the request, under waitUntil). Without MCP servers, the tenant itself.
 */
export function withRemoteTools(tenant: Tenant, env: Record<string, unknown>, waitUntil?: WaitUntil): Tenant {
  const base = bases.get(tenant) ?? tenant;
  if (base.adapters.servers.length === 0) return base;
  const entry = liveOf(base, env);
  return viewWith(base, entry, entry.remote.known(waitUntil));
}

/**
 * The same for a request that needs the lists (a listing, a call to a name not known yet): waits,
 * at most LIST_WAIT_MS, for servers whose first list has not arrived.
 */
export async function withListedTools(
  tenant: Tenant,
  env: Record<string, unknown>,
  waitUntil?: WaitUntil,
): Promise<Tenant> {
  const base = bases.get(tenant) ?? tenant;
  if (base.adapters.servers.length === 0) return base;
  const entry = liveOf(base, env);
  return viewWith(base, entry, await entry.remote.settled(waitUntil));
}
