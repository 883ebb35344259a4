import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { RpcCode } from "../../../src/mcp/errors";
import type { AppEnv } from "../../env";
import { bodyText } from "../../middleware/body-limit";
import { rpcError } from "../jsonrpc";
import { serveLegacy } from "../v2025/legacy";
import { refusal, serveModern } from "../v2026/modern";
import { classifyPost } from "./classify";
import { mcpHeadersOf } from "./headers";
import { accepted, type RespondOptions } from "./respond";

export { handleDelete } from "../v2025/legacy";

/**
 * Streamable HTTP on /mcp for both eras: a POST is routed to the 2026-07-28 handler (v2026/modern.ts) or
 * to the session-based one of 2024-11-05 to 2025-11-25 (v2025/legacy.ts) by classify.ts.
 */

export type TransportOptions = RespondOptions;

function refuse(
  c: Context<AppEnv>,
  status: ContentfulStatusCode,
  code: number,
  message: string,
  headers?: Record<string, string>,
): Response {
  return c.json(rpcError(null, code, message), status, headers);
}

export async function handlePost(c: Context<AppEnv>, options: TransportOptions = {}): Promise<Response> {
  const type = c.req.header("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json")
    return refuse(c, 415, RpcCode.badRequest, "Unsupported Media Type: send JSON-RPC as application/json.");
  const accept = accepted(c.req.header("accept"));
  if (!accept.json && !accept.sse) {
    return refuse(
      c,
      406,
      RpcCode.badRequest,
      "Not Acceptable: the client must accept application/json and text/event-stream.",
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(await bodyText(c));
  } catch {
    return refuse(c, 400, RpcCode.parseError, "Parse error: the body is not JSON.");
  }
  const headers = mcpHeadersOf(c.req.raw.headers);
  const route = classifyPost(body, headers);
  if ("refuse" in route) return refusal(c, route.refuse);
  return route.era === "modern"
    ? serveModern(c, route, headers, accept, options)
    : serveLegacy(c, body, accept, options);
}

/** The methods /mcp takes. */
const ALLOW = "POST, DELETE";

/**
 * GET would open a stream for server-initiated messages: toolgate sends none outside a request (a
 * tool's question to a legacy client goes on the stream of its tools/call; no list changes within a
 * deployment), and 2026-07-28 has no GET at all, so it answers 405.
 */
export function handleGet(c: Context<AppEnv>): Response {
  return refuse(
    c,
    405,
    RpcCode.badRequest,
    "Method Not Allowed: this server sends no messages outside a request's response.",
    {
      Allow: ALLOW,
    },
  );
}

/** Any method but POST, GET and DELETE: 405, with the methods /mcp takes. */
export function handleOtherMethod(c: Context<AppEnv>): Response {
  const message = `Method Not Allowed: /mcp takes ${ALLOW}, not ${c.req.method}.`;
  return refuse(c, 405, RpcCode.badRequest, message, { Allow: ALLOW });
}
