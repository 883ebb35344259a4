import { Hono, type Context } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { ledgerShard, shardCount } from "../ledger-shards";
import { authenticate, requireKey, requireScope } from "../middleware/auth";
import { eventStream, parseEventId } from "./event-stream";

/** EventSource reconnects reuse the URL, so a token lives a few minutes; the stream outlives it. */
const TOKEN_TTL_MS = 5 * 60_000;

export interface EventRouteOptions {
  heartbeatMs?: number;
  pollMs?: number;
}

/** Scopes of the stream's caller: a key in the Authorization header, or a token from POST /v1/events/token. */
async function streamScopes(c: Context<AppEnv>): Promise<ReadonlySet<string>> {
  const header = c.req.header("Authorization");
  const token = c.req.query("token");
  if (header !== undefined || token === undefined) return (await authenticate(c.var.tenant, header)).scopes;
  const scopes = await ledgerShard(c.env.LEDGER, c.var.tenant.name, 0).checkToken(token);
  if (!scopes) throw new ApiError(401, "invalid_token", "The event token is unknown or expired; get a new one from POST /v1/events/token.");
  return new Set(scopes);
}

/**
 * GET /v1/events: Server-Sent Events (call.started, call.finished, approval.requested,
 * approval.decided, gate.changed), masked, resumable with Last-Event-ID (or ?lastEventId=), with
 * heartbeats. POST /v1/events/token gives a short-lived token for EventSource, which cannot send
 * headers: the key itself never goes in a URL. Mount before the app's key check (the token is the
 * credential of the GET).
 */
export function eventRoutes(options: EventRouteOptions = {}) {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const pollMs = options.pollMs ?? 25_000;
  return new Hono<AppEnv>()
    .post("/token", requireKey, requireScope("call"), async (c) => {
      const scopes = [...c.var.caller.scopes];
      const { token, expiresAt } = await ledgerShard(c.env.LEDGER, c.var.tenant.name, 0).issueToken(scopes, TOKEN_TTL_MS);
      return c.json({ token, expiresAt, url: `/v1/events?token=${encodeURIComponent(token)}` });
    })
    .get("/", async (c) => {
      const scopes = await streamScopes(c);
      if (!scopes.has("call") && !scopes.has("admin")) throw new ApiError(403, "forbidden", 'This key lacks the "call" scope.');
      const shards = shardCount(c.env);
      const tenant = c.var.tenant.name;
      const stream = eventStream({
        shards: Array.from({ length: shards }, (_, shard) => () => ledgerShard(c.env.LEDGER, tenant, shard)),
        resume: parseEventId(c.req.header("Last-Event-ID") ?? c.req.query("lastEventId"), shards),
        heartbeatMs,
        pollMs,
      });
      return new Response(stream, {
        headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" },
      });
    });
}

export const events = eventRoutes();
