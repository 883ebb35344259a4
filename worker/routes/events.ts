import type { Context } from "hono";
import { Hono } from "../hono-lazy";
import type { Scope } from "../tenant/config";
import type { AppEnv, Caller } from "../env";
import { ApiError } from "../errors";
import { callDurable, DurableUnavailable } from "../durable/call";
import { tenantLedger, type LedgerAddress } from "../ledger/address";
import { MAP_TTL_MS } from "../ledger/map-cache";
import { eventStartOf, spanOf } from "../ledger/shard-map";
import { authenticate, hasScope, requireKey, requireScope } from "../middleware/auth";
import { viewerOf, type Viewer } from "../ledger/viewer";
import { MAX_RECENT_EVENTS, recentStarts } from "./event-recent";
import { eventStream, parseEventId, startPositions, type GrownShard } from "./event-stream";
import { intParam } from "./ledger-paging";

/** EventSource reconnects reuse the URL, so a token lives a few minutes; the stream outlives it. */
const TOKEN_TTL_MS = 5 * 60_000;

export interface EventRouteOptions {
  heartbeatMs?: number;
  pollMs?: number;
  /** How often an open stream looks for shards a change of the shard map added (default MAP_TTL_MS). */
  growMs?: number;
}

/**
 * The stream's caller and what it sees: a key in the Authorization header, or a token from
 * POST /v1/events/token (which keeps the viewer of the caller that asked for it).
 */
async function streamCaller(c: Context<AppEnv>): Promise<{ caller: Caller; viewer: Viewer }> {
  const header = c.req.header("Authorization");
  const token = c.req.query("token");
  if (header !== undefined || token === undefined) {
    const caller = await authenticate(c, header);
    return { caller, viewer: viewerOf(caller) };
  }
  // Tokens live on shard 0.
  const found = await callDurable(
    () => tenantLedger(c.env, c.var.tenant.name).shard(0),
    (ledger) => ledger.checkToken(token),
  );
  if (!found)
    throw new ApiError(
      401,
      "invalid_token",
      "The event token is unknown or expired; get a new one from POST /v1/events/token.",
    );
  // Streams bind no session: the token stands for the key (or grant, or person) that asked for it.
  const caller: Caller = { keyName: found.key, scopes: new Set(found.scopes as Scope[]), binding: new Uint8Array(0) };
  return { caller, viewer: found.viewer === undefined ? viewerOf(caller) : found.viewer };
}

/**
 * GET /v1/events: Server-Sent Events (call.started, call.finished, approval.requested,
 * approval.decided, gate.changed), masked, resumable with Last-Event-ID (or ?lastEventId=), with
 * heartbeats. The response starts once every shard's position is known, with a `ready` event: any
 * event after it is delivered. A new (not resumed) stream sends first the newest `?recent=` events
 * (at most 100) the caller may see, and its `ready` says how many. A call-scope key gets only the events of its own
 * calls; admin all. POST /v1/events/token gives a short-lived token for EventSource, which cannot send headers: the key
 * itself never goes in a URL. Mount before the app's key check (the token is the credential of the GET).
 */
export function eventRoutes(options: EventRouteOptions = {}) {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const pollMs = options.pollMs ?? 25_000;
  const growMs = options.growMs ?? MAP_TTL_MS;
  return new Hono<AppEnv>()
    .post("/token", requireKey, requireScope("call"), async (c) => {
      const scopes = [...c.var.caller.scopes];
      const shard = () => tenantLedger(c.env, c.var.tenant.name).shard(0);
      const { token, expiresAt } = await callDurable(shard, (ledger) =>
        ledger.issueToken(scopes, c.var.caller.keyName, TOKEN_TTL_MS, viewerOf(c.var.caller)),
      );
      return c.json({ token, expiresAt, url: `/v1/events?token=${encodeURIComponent(token)}` });
    })
    .get("/", async (c) => {
      const { caller, viewer } = await streamCaller(c);
      if (!hasScope(caller, "call")) throw new ApiError(403, "forbidden", 'This key lacks the "call" scope.');
      const recent = intParam(c.req.query("recent"), "recent", 0, MAX_RECENT_EVENTS, 0);
      const ledger = tenantLedger(c.env, c.var.tenant.name);
      const start = await (async (): Promise<{ positions: number[]; recent?: number }> => {
        const map = await ledger.map();
        const resume = parseEventId(c.req.header("Last-Event-ID") ?? c.req.query("lastEventId"), spanOf(map));
        // A resumed stream continues where it was: the recent events were sent before.
        if (!resume && recent > 0) {
          const { positions, count } = await recentStarts(readers(ledger, 0, spanOf(map)), recent, viewer);
          return { positions, recent: count };
        }
        // A shard the id does not know (the map grew since) is read from where its version began.
        const known = resume?.map((at, n) => (at >= 0 ? at : (eventStartOf(map, n) ?? -1))) ?? null;
        return { positions: await startPositions(readers(ledger, 0, spanOf(map)), known, viewer) };
      })().catch((error: unknown) => {
        if (error instanceof DurableUnavailable) throw error;
        throw new ApiError(
          503,
          "ledger_unavailable",
          "The call ledger did not answer; the event stream could not start. Try again.",
        );
      });
      const { positions } = start;
      const shards = readers(ledger, 0, positions.length);
      const grow = async (known: number): Promise<GrownShard[]> => {
        const map = await ledger.map();
        const more = readers(ledger, known, spanOf(map));
        const starts = await startPositions(
          more,
          more.map((_, i) => eventStartOf(map, known + i) ?? -1),
          viewer,
        );
        return more.map((reader, i) => ({ shard: known + i, reader, start: starts[i]! }));
      };
      const stream = eventStream({
        shards,
        positions,
        viewer,
        heartbeatMs,
        pollMs,
        grow,
        growMs,
        ...(start.recent === undefined ? {} : { recent: start.recent }),
      });
      return new Response(stream, {
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache, no-transform",
          "x-accel-buffering": "no",
        },
      });
    });
}

export const events = eventRoutes();

/** Readers of shards from..to-1 (a fresh stub per read): their events, and their recent events. */
function readers(ledger: LedgerAddress, from: number, to: number): (() => ReturnType<LedgerAddress["shard"]>)[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => () => ledger.shard(from + i));
}
