import { describe, expect, it } from "vitest";
import { classifyProbe, isModernEvidence } from "../../../src/adapters/mcp/era";
import { INITIALIZE_PARAMS, settledVersion } from "../../../src/adapters/mcp/legacy";
import { CLIENT_CAPABILITIES, requestMeta, setStandardHeaders } from "../../../src/adapters/mcp/modern";
import { rpcFailure } from "../../../src/adapters/mcp/wire";
import type { ToolError } from "../../../src/errors";
import { RpcCode, unsupportedVersionData } from "../../../src/mcp/errors";
import type { RequestMethod } from "../../../src/mcp/messages";
import { isModernVersion, type ModernVersion } from "../../../src/mcp/versions";
import { declaresTasks, tasksRequired } from "../../../worker/mcp/capabilities";
import { classifyPost } from "../../../worker/mcp/transport/classify";
import { mcpHeadersOf } from "../../../worker/mcp/transport/headers";
import { initialize } from "../../../worker/mcp/v2025/initialize";
import { discover } from "../../../worker/mcp/v2026/discover";
import { checkStandardHeaders } from "../../../worker/mcp/v2026/headers";

/**
 * toolgate's MCP server (worker/mcp/) and its client (src/adapters/mcp/) read one vocabulary
 * (src/mcp/): what one side writes, the other reads as meant. Each case runs the real function of
 * each side; only the HTTP between them is left out.
 */

/** What the server's server/discover answers (the wire adds resultType and _meta: no client reads them here). */
const discovered = () => discover() as { supportedVersions: string[]; capabilities: Record<string, unknown> };

describe("the revisions", () => {
  it("every revision the server serves is one the client speaks", () => {
    const { supportedVersions } = discovered();
    expect(supportedVersions).toContain("2024-11-05");
    for (const version of supportedVersions) {
      if (isModernVersion(version)) {
        const verdict = classifyProbe({ kind: "result", result: { supportedVersions: [version] } });
        expect(verdict, version).toMatchObject({ kind: "modern", version });
      } else {
        // A legacy client asking for this revision gets it; toolgate's client takes it back from a server.
        const { result } = initialize({ ...INITIALIZE_PARAMS, protocolVersion: version });
        expect(result.protocolVersion, version).toBe(version);
        expect(settledVersion(result), version).toBe(version);
      }
    }
  });

  it("the server's discovery makes the client speak the newest revision; each side declares tasks", () => {
    const result = discovered();
    const newest = result.supportedVersions[0]!;
    const verdict = classifyProbe({ kind: "result", result });
    expect(verdict).toEqual({ kind: "modern", version: newest, capabilities: result.capabilities });
    expect(declaresTasks({ version: newest, capabilities: CLIENT_CAPABILITIES })).toBe(true);
    expect(declaresTasks({ version: newest, capabilities: result.capabilities })).toBe(true);
  });

  it("the client's initialize is answered in the revision it offers", () => {
    const { version, result } = initialize(INITIALIZE_PARAMS);
    expect(version).toBe(INITIALIZE_PARAMS.protocolVersion);
    expect(settledVersion(result)).toBe(INITIALIZE_PARAMS.protocolVersion);
  });

  it("the server's UnsupportedProtocolVersion names a revision the client asks again with", () => {
    const data = unsupportedVersionData("2099-01-01");
    const error = { code: RpcCode.unsupportedVersion, message: "Unsupported protocol version", data };
    expect(isModernEvidence(error)).toBe(true);
    expect(classifyProbe({ kind: "http-error", status: 400, error })).toEqual({ kind: "retry", version: "2026-07-28" });
  });
});

describe("a 2026-07-28 request of the client, as the server reads it", () => {
  const version: ModernVersion = "2026-07-28";
  const cases: [RequestMethod, Record<string, unknown>][] = [
    ["tools/call", { name: "grüße", arguments: {} }],
    ["tasks/get", { taskId: "mcp-1" }],
    ["tools/list", {}],
  ];

  it.each(cases)("%s: modern, its envelope whole, its headers agreeing with the body", (method, params) => {
    const headers = new Headers();
    setStandardHeaders(headers, version, method, params);
    const meta = requestMeta(version, CLIENT_CAPABILITIES);
    const body = { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta } };
    const read = mcpHeadersOf(headers);
    const route = classifyPost(JSON.parse(JSON.stringify(body)), read);
    if (!("era" in route) || route.era !== "modern" || route.kind !== "request") {
      throw new Error(`not a modern request: ${JSON.stringify(route)}`);
    }
    const clientInfo = { name: "toolgate", version: "0.1.0" };
    expect(route.envelope).toEqual({ version, capabilities: CLIENT_CAPABILITIES, clientInfo });
    expect(declaresTasks(route.envelope)).toBe(true);
    expect(checkStandardHeaders(route.message, read)).toBeUndefined();
  });
});

describe("the server's errors, as the client reads them", () => {
  it("MissingRequiredClientCapability: not retried, naming what the server requires", () => {
    const refused = tasksRequired('the tool "slow"');
    const { code, message, data } = refused;
    const error = rpcFailure("remote", "tools/call", { code, message, data }) as ToolError;
    expect(error.code).toBe("upstream_error");
    expect(error.retryable).toBe(false);
    const { requiredCapabilities } = data as { requiredCapabilities: unknown };
    expect(error.message).toContain(`it requires ${JSON.stringify(requiredCapabilities)}`);
  });
});
