import type { Context } from "hono";
import { Hono } from "hono/tiny";
import * as v from "valibot";
import type { RemoteDefinition } from "../../src/adapters/mcp";
import { remoteToolsOf } from "../adapters/live";
import type { RemoteServer } from "../adapters/remote";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { requireScope } from "../middleware/auth";
import type { Pin } from "../pins/adapter-pins";

const ApproveBody = v.object({
  tools: v.pipe(
    v.array(v.union([v.string(), v.object({ tool: v.string(), hash: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "hash must be 64 hex characters"))) })])),
    v.minLength(1, "tools must name at least one tool"),
  ),
});

/** Pinning verdict of one remote tool, as a call would meet it. */
function stateOf(def: RemoteDefinition, pin: Pin | undefined, pinning: string) {
  const state = pin === undefined ? "unapproved" : pin.hash === def.hash ? "approved" : "changed";
  const callable = pinning === "off" || state === "approved" || (state === "unapproved" && pinning === "changes");
  return { state, callable };
}

function remoteOf(c: Context<AppEnv>) {
  const remote = remoteToolsOf(c.var.tenant);
  if (!remote) throw new ApiError(404, "not_found", "This tenant declares no MCP servers.");
  return remote;
}

function serverNamed(c: Context<AppEnv>, name: string): RemoteServer {
  const server = remoteOf(c).servers.find((s) => s.declaration.name === name);
  if (!server) throw new ApiError(404, "not_found", `No MCP server named "${name}" is declared.`);
  return server;
}

/** The server's definitions as listed now (not from the cache): what an admin approves must be current. */
async function freshDefinitions(server: RemoteServer, signal: AbortSignal): Promise<RemoteDefinition[]> {
  server.source.invalidate();
  return server.source.definitions(signal);
}

async function describeServer(server: RemoteServer, pins: Map<string, Pin>, signal: AbortSignal) {
  const { name, url, prefix, pinning } = server.declaration;
  const base = { name, url, upstream: server.upstream, prefix, pinning };
  let definitions: RemoteDefinition[];
  try {
    definitions = await freshDefinitions(server, signal);
  } catch (error) {
    return { ...base, error: error instanceof Error ? error.message : String(error), tools: [] };
  }
  const tools = definitions.map((def) => {
    const pin = pins.get(def.tool);
    return {
      tool: def.tool,
      remoteName: def.remoteName,
      hash: def.hash,
      ...stateOf(def, pin, pinning),
      ...(pin ? { approved: { hash: pin.hash, by: pin.approvedBy, at: new Date(pin.approvedAt).toISOString() } } : {}),
      definition: def.definition,
    };
  });
  return { ...base, tools };
}

/**
 * GET /v1/adapters (admin): the tenant's adapters, one list per kind; for each MCP server its tools
 * as listed now, with their definition hash and pinning state (unapproved, approved, changed) and
 * whether calls pass.
 * POST /v1/adapters/mcp/:server/approve (admin) { tools: ["name" | { tool, hash }] }: pin the
 * current definitions. With a hash, the pin is written only if the definition still has it (409
 * otherwise), so an admin never approves a definition they did not see.
 */
export const adapters = new Hono<AppEnv>()
  .get("/", requireScope("admin"), async (c) => {
    const { adapters: all } = c.var.tenant;
    const remote = remoteToolsOf(c.var.tenant);
    const pins = new Map((remote?.pins ? await remote.pins.all() : []).map((pin) => [pin.tool, pin]));
    const signal = AbortSignal.timeout(15_000);
    const mcp = await Promise.all((remote?.servers ?? []).map((server) => describeServer(server, pins, signal)));
    return c.json({ egress: all.egress, ...all.summary, mcp });
  })
  .post("/mcp/:server/approve", requireScope("admin"), async (c) => {
    const server = serverNamed(c, c.req.param("server"));
    const pins = remoteOf(c).pins;
    if (!pins) throw new ApiError(500, "not_configured", "The ADAPTER_PINS Durable Object binding is missing.");
    const parsed = v.safeParse(ApproveBody, await c.req.json().catch(() => undefined));
    if (!parsed.success) throw new ApiError(400, "invalid_body", parsed.issues[0]?.message ?? 'Send { "tools": ["name"] }.');
    const definitions = await freshDefinitions(server, AbortSignal.timeout(15_000));
    const entries = parsed.output.tools.map((item) => {
      const { tool, hash } = typeof item === "string" ? { tool: item, hash: undefined } : item;
      const def = definitions.find((d) => d.tool === tool);
      if (!def) throw new ApiError(404, "unknown_tool", `The server "${server.declaration.name}" does not offer "${tool}" (now: ${definitions.map((d) => d.tool).join(", ") || "nothing"}).`);
      if (hash !== undefined && hash !== def.hash) {
        throw new ApiError(409, "definition_mismatch", `The definition of "${tool}" changed again (its hash is now ${def.hash}); review it and approve that hash.`);
      }
      return { tool, server: server.declaration.name, hash: def.hash, definition: def.definition };
    });
    const written = await pins.approve(entries, c.var.caller.keyName);
    const approved = entries.map(({ tool, hash }) => ({ tool, hash, by: written.find((pin) => pin.tool === tool)?.approvedBy }));
    return c.json({ server: server.declaration.name, approved });
  });
