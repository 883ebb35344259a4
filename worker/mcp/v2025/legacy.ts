import type { Context } from "hono";
import { RpcCode, unsupportedVersionData } from "../../../src/mcp/errors";
import { MCP_HEADERS } from "../../../src/mcp/headers";
import type { RpcRequest, RpcResponse } from "../../../src/mcp/messages";
import { allowsBatches, DEFAULT_LEGACY_VERSION, isLegacyVersion } from "../../../src/mcp/versions";
import { overBatchLimit } from "../../tenant/batch-limit";
import type { AppEnv } from "../../env";
import { waitUntilOf } from "../../execution";
import { tenantLedger } from "../../ledger/address";
import { viewerOf } from "../../ledger/viewer";
import type { SessionAsks } from "../dispatch";
import { classify, rpcError, RpcFailure, rpcResult, type Incoming } from "../jsonrpc";
import { respond, type Accepts, type RespondOptions } from "../transport/respond";
import { askableBy } from "../client-asks";
import { createAskStore } from "./ask-store";
import { sessionCallId } from "./call-ids";
import { cancelByNotification, cancelSessionCalls, type CancelTarget } from "./cancel";
import { takeAnswer } from "./client-answers";
import { initialize } from "./initialize";
import { DEFAULT_ASK_TIMEOUT_MS } from "./legacy-ask";
import { checkSessionId, createSessionId, type Session } from "./session";
import { createSessionStore, type SessionState } from "./session-store";

/**
 * The legacy era (2024-11-05 to 2025-11-25) of Streamable HTTP: initialize opens a session whose id
 * travels in Mcp-Session-Id; DELETE ends it. The id itself is checked without storage; the rest of a
 * session (level, deletion) is read from the ledger once per request, and its calls' ids derive from
 * it, so a cancel or a DELETE landing on any isolate reaches them. A client that declared what it
 * answers is asked on a tools/call's stream (legacy-ask.ts); its responses, POSTed to any isolate,
 * reach the waiting call through the ledger (client-answers.ts).
 */

function refuse(c: Context<AppEnv>, status: 400 | 404, code: number, message: string, data?: unknown): Response {
  return c.json(rpcError(null, code, message, data), status);
}

/** What sessions are bound to: the caller's key (its hash, or its id) or OAuth grant. */
function keyHash(c: Context<AppEnv>): Uint8Array {
  return c.var.caller.binding;
}

interface OpenSession {
  session: Session;
  state: SessionState;
  store: ReturnType<typeof createSessionStore>;
}

async function openSession(c: Context<AppEnv>): Promise<OpenSession | Response> {
  const id = c.req.header(MCP_HEADERS.sessionId);
  if (!id)
    return refuse(
      c,
      400,
      RpcCode.badRequest,
      "Bad Request: the Mcp-Session-Id header is required; send initialize first.",
    );
  const session = await checkSessionId(id, keyHash(c), Date.now(), c.var.endpoint ?? "");
  const store = createSessionStore(tenantLedger(c.env, c.var.tenant.name));
  const state = session && (await store.read(session));
  if (!session || !state || state.ended)
    return refuse(c, 404, RpcCode.sessionNotFound, "Session not found: initialize a new session.");
  return { session, state, store };
}

function cancelTarget(c: Context<AppEnv>, session: Session): CancelTarget {
  const ledger = tenantLedger(c.env, c.var.tenant.name);
  return { ledger, asks: createAskStore(ledger), viewer: viewerOf(c.var.caller), sessionRef: session.ref };
}

/**
 * The client's responses to what its calls asked it: stored where the waiting calls read
 * them; a refused one becomes an error.
 */
async function takeAnswers(c: Context<AppEnv>, incoming: readonly Incoming[], session: Session): Promise<Incoming[]> {
  if (!incoming.some((item) => item.kind === "response")) return [...incoming];
  const store = createAskStore(tenantLedger(c.env, c.var.tenant.name));
  return Promise.all(
    incoming.map(async (item): Promise<Incoming> => {
      if (item.kind !== "response") return item;
      const refusal = await takeAnswer(item.message, session.ref, store);
      return refusal ? { kind: "refused", refusal } : item;
    }),
  );
}

/** How this session's calls ask its client, when it declared anything it answers. */
function sessionAsks(c: Context<AppEnv>, session: Session, options: RespondOptions): SessionAsks | undefined {
  if (session.asks === 0) return undefined;
  const store = createAskStore(tenantLedger(c.env, c.var.tenant.name));
  return {
    flags: session.asks,
    sessionRef: session.ref,
    store,
    timeoutMs: options.askTimeoutMs ?? DEFAULT_ASK_TIMEOUT_MS,
  };
}

/** initialize: a new session bound to the caller's key; its id travels in the Mcp-Session-Id header. */
async function startSession(c: Context<AppEnv>, request: RpcRequest): Promise<Response> {
  let reply: RpcResponse;
  const headers: Record<string, string> = {};
  try {
    const { result, asks } = initialize(request.params);
    headers[MCP_HEADERS.sessionId] = await createSessionId(keyHash(c), Date.now(), asks, c.var.endpoint ?? "");
    reply = rpcResult(request.id, result);
  } catch (error) {
    if (!(error instanceof RpcFailure)) throw error;
    reply = rpcError(request.id, error.code, error.message);
  }
  return c.json(reply, 200, headers);
}

/** A legacy POST: initialize, or messages of an open session. */
export async function serveLegacy(
  c: Context<AppEnv>,
  body: unknown,
  accept: Accepts,
  options: RespondOptions,
): Promise<Response> {
  const batch = Array.isArray(body);
  const items = batch ? (body as unknown[]) : [body];
  if (items.length === 0) return refuse(c, 400, RpcCode.invalidRequest, "Invalid Request: an empty batch.");
  // The bound of POST /v1/calls: a batch over it is refused whole, before any of it runs.
  const { config } = c.var.tenant;
  const tooMany = overBatchLimit(config, items.length, "JSON-RPC messages");
  const limit = config.limits.maxCallsPerBatch;
  if (tooMany) return refuse(c, 400, RpcCode.invalidRequest, `Invalid Request: ${tooMany}`, { limit });
  const incoming = items.map(classify);
  const only = incoming[0]!;
  if (!batch && only.kind === "request" && only.message.method === "initialize") return startSession(c, only.message);

  const version = c.req.header(MCP_HEADERS.protocolVersion)?.trim();
  if (version !== undefined && !isLegacyVersion(version)) {
    const data = unsupportedVersionData(version);
    return refuse(
      c,
      400,
      RpcCode.unsupportedVersion,
      `Unsupported protocol version ${JSON.stringify(data.requested)}.`,
      data,
    );
  }
  if (batch && !allowsBatches(version ?? DEFAULT_LEGACY_VERSION)) {
    return refuse(
      c,
      400,
      RpcCode.invalidRequest,
      `Invalid Request: MCP ${version} has no JSON-RPC batches; send one message per request.`,
    );
  }
  const open = await openSession(c);
  if (open instanceof Response) return open;
  const { session, state, store } = open;
  const waitUntil = waitUntilOf(c);
  for (const item of incoming) {
    if (item.kind !== "notification") continue;
    // Answered at once (202); the cancel goes on in the background, bounded.
    const cancelling = cancelByNotification(item.message, cancelTarget(c, session));
    if (waitUntil) waitUntil(cancelling);
  }
  const taken = await takeAnswers(c, incoming, session);
  if (!taken.some((item) => item.kind === "request" || item.kind === "invalid")) {
    const refused = taken.find((item) => item.kind === "refused");
    // A response the server cannot accept: 400, with a JSON-RPC error without an id (the spec's MAY).
    return refused ? refuse(c, 400, refused.refusal.code, refused.refusal.message) : c.body(null, 202);
  }
  let level = state.level;
  const asks = sessionAsks(c, session, options);
  // -32042 is 2025-11-25's; a client answering URL-mode elicitations is asked on the call's stream instead.
  const urlRequired =
    c.var.tenant.config.connections !== undefined &&
    version === "2025-11-25" &&
    !askableBy(session.asks).elicitationModes?.has("url");
  return respond(
    c,
    taken,
    batch,
    accept,
    {
      era: "legacy",
      logLevel: () => level,
      callId: (id) => sessionCallId(session.ref, id),
      setLevel: async (next) => {
        await store.setLevel(session, next);
        level = next;
      },
      ...(asks ? { asks } : {}),
      ...(urlRequired ? { urlRequiredOrigin: new URL(c.req.url).origin } : {}),
    },
    options,
  );
}

/** DELETE ends the session: its id is refused from then on, by every isolate, and its running calls are cancelled. */
export async function handleDelete(c: Context<AppEnv>): Promise<Response> {
  const open = await openSession(c);
  if (open instanceof Response) return open;
  await open.store.end(open.session);
  await cancelSessionCalls(cancelTarget(c, open.session));
  return c.body(null, 200);
}
