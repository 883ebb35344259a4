import { mcpServer, type McpToolSource } from "../../src/adapters/mcp";
import type { McpServer } from "../../src/adapters/declarations";
import type { Tool } from "../../src/tool";
import { logLine } from "../log";
import type { StaticAdapters } from "./build";
import type { TenantPins } from "./pins";

/** A listing on the request path waits at most this long. */
const LIST_TIMEOUT_MS = 10_000;
/** After a failed listing, requests use the last good list (or none) this long before trying again. */
const RETRY_AFTER_FAILURE_MS = 15_000;

export interface RemoteServer {
  declaration: McpServer;
  upstream: string;
  source: McpToolSource;
  /** The last list that arrived; kept while the server cannot be reached. */
  tools: Tool[];
  failure?: { at: number; message: string };
}

export interface RemoteTools {
  servers: RemoteServer[];
  pins: TenantPins | undefined;
  /** Every server's current tools (cached per server with its TTL; refreshed after list_changed). */
  current(): Promise<Tool[][]>;
}

export interface RemoteDeps {
  secrets: Readonly<Record<string, string>>;
  pins?: TenantPins;
  now?: () => number;
}

/**
 * The tenant's remote MCP servers as live tool sources, one per isolate. A server that fails to
 * list does not fail the request: its last good tools stay (calls to them fail on their own) and
 * it is not asked again for RETRY_AFTER_FAILURE_MS.
 */
export function createRemoteTools(adapters: StaticAdapters, deps: RemoteDeps): RemoteTools {
  const now = deps.now ?? Date.now;
  const quiet = () => undefined;
  const log = { debug: quiet, info: quiet, warn: (message: string) => logLine({ msg: "mcp_warning", message }), error: (message: string) => logLine({ msg: "mcp_error", message }) };
  const servers: RemoteServer[] = adapters.servers.map(({ declaration, upstream, gate }) => ({
    declaration,
    upstream,
    tools: [],
    source: mcpServer(declaration, {
      fetch: adapters.fetch,
      secrets: deps.secrets,
      ...(gate ? { gate } : {}),
      ...(deps.pins ? { pins: deps.pins } : {}),
      log,
    }),
  }));

  async function refresh(server: RemoteServer): Promise<Tool[]> {
    if (server.failure && now() - server.failure.at < RETRY_AFTER_FAILURE_MS) return server.tools;
    try {
      server.tools = await server.source.tools(AbortSignal.timeout(server.declaration.timeoutMs ?? LIST_TIMEOUT_MS));
      delete server.failure;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      server.failure = { at: now(), message };
      logLine({ msg: "mcp_list_failed", server: server.declaration.name, error: message });
    }
    return server.tools;
  }

  return {
    servers,
    pins: deps.pins,
    current: () => Promise.all(servers.map(refresh)),
  };
}
