import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { knownEras } from "../../../src/adapters/mcp/era";
import { mcp as mcpFormat } from "../../../src/formats/mcp";
import { startV2Server, type V2Era, type V2TestServer } from "../../servers/mcp-v2-server";
import { callTool, remote, until } from "./mcp-helpers";

/**
 * The remote MCP adapter against the official SDK v2 server in each of its eras: toolgate probes
 * with server/discover, speaks 2026-07-28 to the servers that offer it and falls back to
 * initialize (2025-11-25) for the one that does not.
 */

const servers = new Map<V2Era, V2TestServer>();
beforeAll(async () => {
  for (const era of ["dual", "modern", "legacy"] as const) servers.set(era, await startV2Server(era));
});
afterAll(async () => {
  for (const server of servers.values()) await server.close();
});

const methods = (server: V2TestServer) => server.requests.map((r) => r.body.method);

describe.each(["dual", "modern"] as const)("an SDK v2 server offering 2026-07-28 (%s)", (era) => {
  const server = () => servers.get(era)!;

  it("is found modern by server/discover and spoken to statelessly: _meta and Mcp-* headers on every request, no session", async () => {
    const { source } = remote(server().url);
    const tools = await source.tools();
    expect(tools.map((t) => t.name)).toEqual([
      "r_echo",
      "r_add",
      "r_annotated",
      "r_slow",
      "r_region",
      "r_summarise",
      "r_two_rounds",
    ]);
    expect(knownEras.get(server().url)).toMatchObject({ kind: "modern", version: "2026-07-28" });
    const { result } = await callTool(tools, "r_echo", { text: "hi" }, server().url);
    expect(result.ok && result.output.content).toEqual([{ type: "text", text: "echo: hi" }]);

    expect(methods(server())).not.toContain("initialize");
    expect(methods(server())[0]).toBe("server/discover");
    const call = server().requests.find((r) => r.body.method === "tools/call")!;
    expect(call.headers).toMatchObject({
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "echo",
    });
    expect(call.headers["mcp-session-id"]).toBeUndefined();
    expect(call.body.params?._meta).toMatchObject({
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "toolgate" },
      "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
    });
  });

  it("keeps structured output, content annotations and the server's tool annotations (as hints beside the policy)", async () => {
    const { source } = remote(server().url, { risk: "high" });
    const tools = await source.tools();
    const added = await callTool(tools, "r_add", { a: 2, b: 3 }, server().url);
    expect(added.result.ok && added.result.output.structured).toEqual({ sum: 5 });
    const annotated = await callTool(tools, "r_annotated", {}, server().url);
    expect(annotated.result.ok && annotated.result.output.content).toEqual([
      { type: "text", text: "for the user", annotations: { audience: ["user"], priority: 0.9 } },
      {
        type: "text",
        text: "for the model",
        annotations: { audience: ["assistant"], priority: 0.2, lastModified: "2026-01-02T03:04:05Z" },
      },
    ]);
    const echo = tools.find((t) => t.name === "r_echo")!;
    expect(echo.title).toBe("Echo");
    expect(echo.annotations).toEqual({
      readOnlyHint: true,
      idempotentHint: true,
      destructiveHint: false,
      openWorldHint: false,
    });
    expect(echo.policy).toEqual({ risk: "high" }); // the hints are not policy
    // The tenant said nothing of readOnly or idempotency: the server's word is shown; risk
    // "high" keeps it destructive-capable unless read-only.
    expect(mcpFormat.toolDefinition(echo).annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  it("mirrors x-mcp-header parameters into Mcp-Param-* headers (the server checks them against the body)", async () => {
    const { source } = remote(server().url);
    const { result } = await callTool(
      await source.tools(),
      "r_region",
      { region: "eu-west", query: "q" },
      server().url,
    );
    expect(result.ok && result.output.content).toEqual([{ type: "text", text: "q in eu-west" }]);
    const call = server().requests.findLast((r) => r.body.params?.name === "region")!;
    expect(call.headers["mcp-param-region"]).toBe("eu-west");
  });

  it("sends a round again with its request state, and answers a clear error for a tool that needs sampling", async () => {
    const { source } = remote(server().url);
    const tools = await source.tools();
    const rounds = await callTool(tools, "r_two_rounds", {}, server().url);
    expect(rounds.result.ok && rounds.result.output.content).toEqual([{ type: "text", text: "finished with round-2" }]);
    const sampling = await callTool(tools, "r_summarise", { text: "long" }, server().url);
    expect(!sampling.result.ok && sampling.result.error).toMatchObject({
      code: "upstream_error",
      message: expect.stringMatching(
        new RegExp(
          '^MCP server "remote" needs input toolgate cannot give a remote server ' +
            String.raw`\(sampling, elicitation or roots\) to answer tools/call \(it requires \{"sampling":\{\}\}\)`,
        ),
      ),
    });
  });

  it("forwards progress, and a timeout closes the request's stream, which the server takes as cancellation", async () => {
    const { source } = remote(server().url, { timeoutMs: 300 });
    const before = server().aborted;
    const slow = await callTool(await source.tools(), "r_slow", { ms: 10_000 }, server().url);
    expect(!slow.result.ok && slow.result.error.code).toBe("timeout");
    expect(slow.progress[0]).toEqual({ progress: 1, total: 2, message: "halfway" });
    await until(() => server().aborted > before);
    expect(methods(server())).not.toContain("notifications/cancelled");
  });
});

describe("an SDK v2 server serving 2025 only", () => {
  it("refuses the probe; toolgate falls back to initialize and calls in 2025-11-25", async () => {
    const server = servers.get("legacy")!;
    const { source } = remote(server.url);
    const tools = await source.tools();
    expect(knownEras.get(server.url)).toEqual({ kind: "legacy" });
    expect(methods(server).slice(0, 3)).toEqual(["server/discover", "initialize", "notifications/initialized"]);
    const annotated = await callTool(tools, "r_annotated", {}, server.url);
    expect(annotated.result.ok && annotated.result.output.content[0]).toEqual({
      type: "text",
      text: "for the user",
      annotations: { audience: ["user"], priority: 0.9 },
    });
    const last = server.requests.at(-1)!;
    expect(last.headers["mcp-protocol-version"]).toBe("2025-11-25");
    expect(last.body.params?._meta).not.toHaveProperty("io.modelcontextprotocol/protocolVersion");
    // x-mcp-header means nothing before 2026-07-28: the tool is listed and called without the header.
    const region = await callTool(tools, "r_region", { region: "eu", query: "q" }, server.url);
    expect(region.result.ok).toBe(true);
  });
});

describe("a server that changes era under the same URL", () => {
  it("is probed again when it refuses a request as being of the other era, which is then sent once more", async () => {
    const server = await startV2Server("legacy");
    const { source } = remote(server.url);
    const tools = await source.tools();
    try {
      expect((await callTool(tools, "r_echo", { text: "old" }, server.url)).result.ok).toBe(true);
      server.become("modern"); // upgraded in place: 2026-07-28 only
      const seen = server.requests.length;
      const { result } = await callTool(tools, "r_echo", { text: "new" }, server.url);
      expect(result.ok && result.output.content).toEqual([{ type: "text", text: "echo: new" }]);
      expect(knownEras.get(server.url)).toMatchObject({ kind: "modern" });
      expect(methods(server).slice(seen)).toEqual(["tools/call", "server/discover", "tools/call"]);

      server.become("legacy"); // and back
      const back = await callTool(tools, "r_echo", { text: "again" }, server.url);
      expect(back.result.ok && back.result.output.content).toEqual([{ type: "text", text: "echo: again" }]);
      expect(knownEras.get(server.url)).toEqual({ kind: "legacy" });
    } finally {
      await server.close();
    }
  });
});
