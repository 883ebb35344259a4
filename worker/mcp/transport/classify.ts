import { RpcCode } from "../../../src/mcp/errors";
import type { RequestId, RpcNotification, RpcRequest } from "../../../src/mcp/messages";
import { isModernVersion, namesModernEra } from "../../../src/mcp/versions";
import { claimedVersion, claimsEnvelope, readEnvelope, type Envelope } from "../v2026/envelope";
import type { McpHeaders } from "./headers";

/** A refusal before any dispatch: the HTTP status and the JSON-RPC error it carries. */
export interface Refusal {
  status: 400 | 404;
  code: number;
  message: string;
  data?: unknown;
  id: RequestId | null;
}

/** Which era serves a POST, decided from its body first, the header only cross-checking it. */
export type Route =
  | { era: "legacy" }
  | { era: "modern"; kind: "request"; message: RpcRequest; envelope: Envelope }
  | { era: "modern"; kind: "notification"; message: RpcNotification }
  | { refuse: Refusal };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const idOf = (value: Record<string, unknown>): RequestId | null =>
  typeof value.id === "string" || (typeof value.id === "number" && Number.isFinite(value.id))
    ? (value.id as RequestId)
    : null;

const refuse = (status: 400 | 404, code: number, message: string, id: RequestId | null, data?: unknown): Route => ({
  refuse: { status, code, message, id, ...(data === undefined ? {} : { data }) },
});

const mismatch = (what: string, id: RequestId | null): Route =>
  refuse(400, RpcCode.headerMismatch, `Header mismatch: ${what}.`, id);

/**
 * The era rules of 2026-07-28 (basic/versioning, transports/streamable-http) for a dual-era endpoint,
 * as the official SDK applies them: a request whose params._meta names a protocol version is modern
 * (a malformed envelope is -32602, never a fall back); `initialize` without such a claim is the legacy
 * handshake; a request without a claim is legacy unless its MCP-Protocol-Version header names a
 * modern revision (then its envelope is missing: -32602). Header and body must agree (-32020).
 * Whether the claimed revision is served is checked later (-32022), so the answer can list them.
 */
export function classifyPost(body: unknown, headers: McpHeaders): Route {
  if (Array.isArray(body)) {
    if (body.some((item) => isObject(item) && claimsEnvelope(item.params))) {
      return refuse(
        400,
        RpcCode.invalidRequest,
        "Invalid Request: JSON-RPC batches cannot carry 2026-07-28 requests; send one message per POST.",
        null,
      );
    }
    return { era: "legacy" };
  }
  if (!isObject(body) || typeof body.method !== "string") return { era: "legacy" };
  const params = body.params;
  const method = body.method;
  const headerModern = headers.version !== undefined && namesModernEra(headers.version);
  const isRequest = "id" in body;
  const id = isRequest ? idOf(body) : null;

  if (isRequest && method === "initialize" && !(claimsEnvelope(params) && isModernVersion(claimedVersion(params)))) {
    return headerModern
      ? mismatch("initialize opens a legacy session but MCP-Protocol-Version names a 2026 revision", id)
      : { era: "legacy" };
  }
  if (claimsEnvelope(params)) {
    // A malformed envelope is answered first (-32602), then any disagreement with the headers (-32020).
    const envelope = isRequest ? readEnvelope(params) : undefined;
    if (envelope && "problem" in envelope)
      return refuse(400, RpcCode.invalidParams, `Invalid params: ${envelope.problem}.`, id);
    const version = claimedVersion(params);
    if (version === undefined)
      return refuse(400, RpcCode.invalidParams, "Invalid params: the _meta protocol version must be a string.", id);
    if (headers.version !== undefined && headers.version !== version) {
      return mismatch(`MCP-Protocol-Version is ${headers.version} but _meta names ${version}`, id);
    }
    if (headers.method !== undefined && headers.method !== method)
      return mismatch(`Mcp-Method is ${headers.method} but the body's method is ${method}`, id);
    if (!envelope) return { era: "modern", kind: "notification", message: body as unknown as RpcNotification };
    return { era: "modern", kind: "request", message: body as unknown as RpcRequest, envelope };
  }
  if (!headerModern) return { era: "legacy" };
  if (headers.method !== undefined && headers.method !== method)
    return mismatch(`Mcp-Method is ${headers.method} but the body's method is ${method}`, id);
  if (!isRequest) return { era: "modern", kind: "notification", message: body as unknown as RpcNotification };
  const envelope = readEnvelope(params);
  const problem = "problem" in envelope ? envelope.problem : "params._meta is missing";
  return refuse(
    400,
    RpcCode.invalidParams,
    `Invalid params: MCP-Protocol-Version is ${headers.version}, ` +
      `and a request of that revision carries its _meta envelope: ${problem}.`,
    id,
  );
}
