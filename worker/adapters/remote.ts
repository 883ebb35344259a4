import type { McpServer, McpToolSource } from "../../src/adapters/mcp";
import type { Tool } from "../../src/tool";
import { logLine } from "../log";
import type { StaticAdapters } from "./build";
import { afterFailure, breakerAllows, CLOSED, type Breaker } from "./breaker";
import type { TenantPins } from "../pins/store";
import { remoteMcp } from "../remote-mcp-library";

/** A listing in the background gives up after this long (a declaration's timeoutMs wins, up to MAX_LIST_TIMEOUT_MS). */
const LIST_TIMEOUT_MS = 10_000;
/**
 * waitUntil keeps a request's work alive 30 s after its response at most: a listing ends before, so it always settles.
 */
const MAX_LIST_TIMEOUT_MS = 20_000;
/**
 * Requests that need a server's first list wait for it until this long after its listing started, then go on without.
 */
export const LIST_WAIT_MS = 3_000;

export interface RemoteServer {
  declaration: McpServer;
  upstream: string;
  source: McpToolSource;
  /** The last list that arrived (empty until one did); kept while the server cannot be reached. */
  tools: Tool[];
  /** Whether a list ever arrived. */
  listed: boolean;
  /** When the last list arrived in this isolate. */
  listedAt?: number;
  breaker: Breaker;
  /** The last failed listing, until a listing succeeds. */
  failure?: { at: number; message: string };
  /** The listing under way, if any (one at a time per server), and when it started. */
  refreshing?: { done: Promise<void>; since: number };
}

/** Hands a promise to the request's ctx.waitUntil, so it may finish after the response. */
export type WaitUntil = (promise: Promise<unknown>) => void;

export interface RemoteTools {
  servers: RemoteServer[];
  pins: TenantPins | undefined;
  /**
   * Every server's last known tools, at once. A server whose list is past its time-to-live (or was
   * changed by list_changed) is listed again in the background, unless its breaker is open.
   */
  known(waitUntil?: WaitUntil): Tool[][];
  /**
   * The same, after waiting for the servers whose first list has not arrived, until LIST_WAIT_MS
   * after their listing started: a server that hangs costs one request at most that, later ones less.
   */
  settled(waitUntil?: WaitUntil): Promise<Tool[][]>;
}

export interface RemoteDeps {
  secrets: Readonly<Record<string, string>>;
  pins?: TenantPins;
  now?: () => number;
}

/** Resolves when the promise settles or after ms, whichever comes first (the promise runs on). */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  if (ms <= 0) return;
  let stop = (): void => undefined;
  const elapsed = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    stop = () => clearTimeout(timer);
  });
  try {
    await Promise.race([promise, elapsed]);
  } finally {
    stop();
  }
}

/**
 * The tenant's remote MCP servers as live tool sources, one per isolate. Listing never stands in
 * a request's way: requests see the last known lists while due ones are refreshed behind them, a
 * server that fails to list keeps its last list and is left alone while its breaker is open, and
 * only a request that needs a list nobody has yet waits for it, briefly. The client is the lazily loaded
 * module's (remote-mcp-library.ts), which readyTenant loaded for a tenant with servers.
 */
export function createRemoteTools(adapters: StaticAdapters, deps: RemoteDeps): RemoteTools {
  const now = deps.now ?? Date.now;
  const quiet = () => undefined;
  const log = {
    debug: quiet,
    info: quiet,
    warn: (message: string) => logLine({ msg: "mcp_warning", message }),
    error: (message: string) => logLine({ msg: "mcp_error", message }),
  };
  const { mcpServer } = remoteMcp();
  const servers: RemoteServer[] = adapters.servers.map(({ declaration, upstream, gate }) => ({
    declaration,
    upstream,
    tools: [],
    listed: false,
    breaker: CLOSED,
    source: mcpServer(declaration, {
      fetch: adapters.fetch,
      secrets: deps.secrets,
      ...(gate ? { gate } : {}),
      ...(deps.pins ? { pins: deps.pins } : {}),
      now,
      log,
    }),
  }));

  function arrived(server: RemoteServer, tools: Tool[]): void {
    server.tools = tools;
    server.listed = true;
    server.listedAt = now();
    server.breaker = CLOSED;
    delete server.failure;
  }

  function failed(server: RemoteServer, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    server.breaker = afterFailure(server.breaker, now());
    server.failure = { at: now(), message };
    logLine({
      msg: "mcp_list_failed",
      server: server.declaration.name,
      failures: server.breaker.failures,
      error: message,
    });
  }

  /** Takes a list that is still fresh (e.g. fetched by a call's pin check); else starts a listing if allowed. */
  function update(server: RemoteServer, waitUntil: WaitUntil | undefined): void {
    const fresh = server.source.cached();
    if (fresh) return void (fresh !== server.tools && arrived(server, fresh));
    if (server.refreshing || !breakerAllows(server.breaker, now())) return;
    const timeoutMs = Math.min(server.declaration.timeoutMs ?? LIST_TIMEOUT_MS, MAX_LIST_TIMEOUT_MS);
    const done = server.source
      .tools(AbortSignal.timeout(timeoutMs))
      .then(
        (tools) => arrived(server, tools),
        (error: unknown) => failed(server, error),
      )
      .finally(() => delete server.refreshing);
    server.refreshing = { done, since: now() };
    waitUntil?.(done);
  }

  const known = (waitUntil?: WaitUntil) => {
    for (const server of servers) update(server, waitUntil);
    return servers.map((server) => server.tools);
  };

  return {
    servers,
    pins: deps.pins,
    known,
    async settled(waitUntil) {
      known(waitUntil);
      const waits = servers.map((server) => {
        const listing = server.listed ? undefined : server.refreshing;
        return listing ? within(listing.done, listing.since + LIST_WAIT_MS - now()) : undefined;
      });
      await Promise.all(waits);
      return servers.map((server) => server.tools);
    },
  };
}
