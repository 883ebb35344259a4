import type { RequestId, RpcNotification, RpcRequest, RpcResponse } from "../../src/mcp/messages";

/**
 * The server's side of MCP's JSON-RPC: what an incoming message is, and the responses it answers
 * (src/mcp/ holds the protocol's vocabulary). Written by hand instead of importing an SDK server: see
 * docs/mcp.md, Library or hand-written.
 */

/** A client's answer to a request the server sent it (legacy sessions: a tool asking, see v2025/legacy-ask.ts). */
export interface ClientResponse {
  id: RequestId;
  result?: unknown;
  error?: unknown;
}

/** What one incoming JSON value is. */
export type Incoming =
  | { kind: "request"; message: RpcRequest }
  | { kind: "notification"; message: RpcNotification }
  | { kind: "response"; message: ClientResponse }
  | { kind: "invalid"; id: RequestId | null; reason: string }
  /** A response the server could not take (v2025/client-answers.ts): answered with this error, without an id. */
  | { kind: "refused"; refusal: { code: number; message: string } };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** Classify one JSON-RPC message without trusting any of it. */
export function classify(value: unknown): Incoming {
  if (!isObject(value) || value.jsonrpc !== "2.0")
    return { kind: "invalid", id: null, reason: 'Expected a JSON-RPC 2.0 object ("jsonrpc": "2.0").' };
  const id = isId(value.id) ? value.id : null;
  if (value.params !== undefined && !isObject(value.params))
    return { kind: "invalid", id, reason: "params must be an object." };
  if (typeof value.method === "string") {
    if (!("id" in value)) return { kind: "notification", message: value as unknown as RpcNotification };
    if (id === null) return { kind: "invalid", id: null, reason: "id must be a string or a number." };
    return { kind: "request", message: value as unknown as RpcRequest };
  }
  if (id !== null && ("result" in value || "error" in value))
    return { kind: "response", message: { id, result: value.result, error: value.error } };
  return { kind: "invalid", id, reason: "Expected a request, a notification or a response." };
}

export function rpcResult(id: RequestId, result: Record<string, unknown>): RpcResponse {
  return { jsonrpc: "2.0", id, result };
}

export function rpcError(id: RequestId | null, code: number, message: string, data?: unknown): RpcResponse {
  return { jsonrpc: "2.0", id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** A JSON-RPC failure a handler throws; the dispatcher answers it as an error response. */
export class RpcFailure extends Error {
  override name = "RpcFailure";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}
