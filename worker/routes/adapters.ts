import type { Context } from "hono";
import { Hono } from "../hono-lazy";
import * as v from "valibot";
import type { RemoteDefinition } from "../../src/adapters/mcp";
import { remoteToolsOf } from "../tenant/live-adapters";
import type { RemoteServer } from "../adapters/remote";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { requireScope } from "../middleware/auth";
import type { Denial, Pin } from "../pins/adapter-pins";
import type { TenantPins } from "../pins/store";

const ReviewBody = v.object({
  tools: v.pipe(
    v.array(
      v.union([
        v.string(),
        v.object({
          tool: v.string(),
          hash: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "hash must be 64 hex characters"))),
        }),
      ]),
    ),
    v.minLength(1, "tools must name at least one tool"),
  ),
});

/** Pinning verdict of one remote tool, as a call would meet it. */
function stateOf(def: RemoteDefinition, pin: Pin | undefined, denial: Denial | undefined, pinning: string) {
  const approved = pin?.hash === def.hash;
  const state = approved
    ? "approved"
    : denial?.hash === def.hash
      ? "denied"
      : pin === undefined
        ? "unapproved"
        : "changed";
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

interface Review {
  pins: Map<string, Pin>;
  denials: Map<string, Denial>;
  store: TenantPins | undefined;
}

/**
 * One server: its state (reachable now, the last failure this isolate saw, when its list last arrived
 * here, its breaker) and its tools as listed now, each with its pinning state and, for a definition
 * that changed since its approval, the approved definition to compare with.
 */
async function describeServer(server: RemoteServer, review: Review, signal: AbortSignal) {
  const { name, url, prefix, pinning } = server.declaration;
  const checkedAt = Date.now();
  const known = {
    ...(server.listedAt === undefined ? {} : { listedAt: server.listedAt }),
    ...(server.failure ? { lastError: server.failure } : {}),
    breaker: server.breaker,
  };
  const base = { name, url, upstream: server.upstream, prefix, pinning };
  let definitions: RemoteDefinition[];
  try {
    definitions = await freshDefinitions(server, signal);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ...base,
      error: message,
      status: { reachable: false, checkedAt, ...known, lastError: { at: checkedAt, message } },
      tools: [],
    };
  }
  const changed = definitions
    .filter((def) => review.pins.has(def.tool) && review.pins.get(def.tool)!.hash !== def.hash)
    .map((def) => def.tool);
  const before = review.store && changed.length > 0 ? await review.store.approvedDefinitions(changed) : {};
  const tools = definitions.map((def) => {
    const pin = review.pins.get(def.tool);
    const denial = review.denials.get(def.tool);
    return {
      tool: def.tool,
      remoteName: def.remoteName,
      hash: def.hash,
      ...stateOf(def, pin, denial, pinning),
      ...(pin
        ? {
            approved: {
              hash: pin.hash,
              by: pin.approvedBy,
              at: new Date(pin.approvedAt).toISOString(),
              ...(def.tool in before ? { definition: before[def.tool] } : {}),
            },
          }
        : {}),
      ...(denial
        ? { denied: { hash: denial.hash, by: denial.deniedBy, at: new Date(denial.deniedAt).toISOString() } }
        : {}),
      definition: def.definition,
    };
  });
  return { ...base, status: { reachable: true, checkedAt, ...known, listedAt: checkedAt }, tools };
}

/** Approve or deny definitions as listed now; with a hash, only if the definition still has it (409 otherwise). */
async function review(c: Context<AppEnv>, verdict: "approve" | "deny") {
  const server = serverNamed(c, c.req.param("server")!);
  const pins = remoteOf(c).pins;
  if (!pins) throw new ApiError(500, "not_configured", "The ADAPTER_PINS Durable Object binding is missing.");
  const parsed = v.safeParse(ReviewBody, await c.req.json().catch(() => undefined));
  if (!parsed.success)
    throw new ApiError(400, "invalid_body", parsed.issues[0]?.message ?? 'Send { "tools": ["name"] }.');
  const definitions = await freshDefinitions(server, AbortSignal.timeout(15_000));
  const entries = parsed.output.tools.map((item) => {
    const { tool, hash } = typeof item === "string" ? { tool: item, hash: undefined } : item;
    const def = definitions.find((d) => d.tool === tool);
    if (!def) {
      const offered = definitions.map((d) => d.tool).join(", ") || "nothing";
      const message = `The server "${server.declaration.name}" does not offer "${tool}" (now: ${offered}).`;
      throw new ApiError(404, "unknown_tool", message);
    }
    if (hash !== undefined && hash !== def.hash) {
      throw new ApiError(
        409,
        "definition_mismatch",
        `The definition of "${tool}" changed again (its hash is now ${def.hash}); review it and ${verdict} that hash.`,
      );
    }
    return { tool, server: server.declaration.name, hash: def.hash, definition: def.definition };
  });
  const name = server.declaration.name;
  if (verdict === "deny") {
    const denied = await pins.deny(entries, c.var.caller.keyName);
    return c.json({
      server: name,
      denied: entries.map(({ tool, hash }) => ({ tool, hash, by: denied.find((d) => d.tool === tool)?.deniedBy })),
    });
  }
  const written = await pins.approve(entries, c.var.caller.keyName);
  return c.json({
    server: name,
    approved: entries.map(({ tool, hash }) => ({
      tool,
      hash,
      by: written.find((pin) => pin.tool === tool)?.approvedBy,
    })),
  });
}

/**
 * GET /v1/adapters (admin): the tenant's adapters, one list per kind; for each MCP server its state
 * and its tools as listed now, with their definition hash and pinning state (unapproved, approved,
 * changed, denied), whether calls pass, and for a changed one the approved definition.
 * POST /v1/adapters/mcp/:server/approve and …/deny (admin) { tools: ["name" | { tool, hash }] }: pin
 * the current definitions, or refuse them (calls of a denied definition are refused until a new one is
 * approved). With a hash, only if the definition still has it (409 otherwise), so an admin never
 * decides on a definition they did not see.
 */
export const adapters = new Hono<AppEnv>()
  .get("/", requireScope("admin"), async (c) => {
    const { adapters: all } = c.var.tenant;
    const remote = remoteToolsOf(c.var.tenant);
    const store = remote?.pins;
    const [pins, denials] = store ? await Promise.all([store.all(), store.denials()]) : [[], []];
    const state: Review = {
      pins: new Map(pins.map((pin) => [pin.tool, pin])),
      denials: new Map(denials.map((d) => [d.tool, d])),
      store,
    };
    const signal = AbortSignal.timeout(15_000);
    const mcp = await Promise.all((remote?.servers ?? []).map((server) => describeServer(server, state, signal)));
    return c.json({ egress: all.egress, ...all.summary, mcp });
  })
  .post("/mcp/:server/approve", requireScope("admin"), (c) => review(c, "approve"))
  .post("/mcp/:server/deny", requireScope("admin"), (c) => review(c, "deny"));
