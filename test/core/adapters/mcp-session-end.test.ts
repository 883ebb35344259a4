import { describe, expect, it } from "vitest";
import { isToolError } from "../../../src/errors";
import { refusedSession, sessionEndOf } from "../../../src/adapters/mcp/session-end";

const LABEL = 'MCP server "x"';
const rpcError = (status: number, message: string) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });

describe("refusedSession: answers that mean the server no longer knows the session", () => {
  it("404, and 400 naming the session or an uninitialized server, are refusals: a retryable upstream_error tagged refused", async () => {
    for (const response of [
      rpcError(404, "Session not found"),
      rpcError(400, "Bad Request: No valid session ID provided"),
      rpcError(400, "Bad Request: Server not initialized"),
      new Response("", { status: 404 }),
    ]) {
      const status = response.status;
      const verdict = await refusedSession(response, LABEL);
      expect(isToolError(verdict) && verdict).toMatchObject({
        code: "upstream_error",
        retryable: true,
        status,
        message: `${LABEL} no longer knows the session (HTTP ${status})`,
      });
      expect(sessionEndOf(verdict)).toBe("refused");
    }
  });

  it("any other 400 is the request's own fault: the response comes back with its body intact", async () => {
    const verdict = await refusedSession(rpcError(400, "Invalid params: a must be a number"), LABEL);
    expect(verdict).toBeInstanceOf(Response);
    const response = verdict as Response;
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toMatchObject({ error: { message: "Invalid params: a must be a number" } });
    expect(sessionEndOf(verdict)).toBeUndefined();
  });

  it("other statuses pass through untouched", async () => {
    const response = rpcError(500, "session store exploded");
    expect(await refusedSession(response, LABEL)).toBe(response);
    expect(response.bodyUsed).toBe(false);
  });
});
