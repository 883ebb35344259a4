import { describe, expect, it } from "vitest";
import { adapterConfig, callTools, uid, upstreams } from "../helpers/adapters";
import { ADMIN_KEY, CALL_KEY, json, request } from "../helpers/requests";

const TOKEN = "mcp-token-for-the-test-server";

function mcpEnv(name: string, url = upstreams.mcp) {
  return {
    TOOLGATE_CONFIG: adapterConfig(name, {
      mcp: [
        {
          name: "t",
          url,
          prefix: "t_",
          tools: ["echo", "add", "bump"],
          auth: { type: "bearer", secret: "MCP" },
        },
      ],
      secrets: { MCP: "ADAPTER_MCP_TOKEN" },
      policies: { t_add: { risk: "medium" } },
    }),
    ADAPTER_MCP_TOKEN: TOKEN,
  };
}

const adaptersView = async (env: Record<string, unknown>) =>
  (await json(await request("/v1/adapters", { env, key: ADMIN_KEY }))).mcp[0];
const remoteTool = (server: any, name: string) => server.tools.find((t: any) => t.tool === name);
const approve = (env: Record<string, unknown>, tools: unknown[]) =>
  request("/v1/adapters/mcp/t/approve", { env, key: ADMIN_KEY, body: { tools } });

describe("remote MCP servers in a tenant's configuration", () => {
  it("lists the allowed remote tools with the tenant's policy and calls them through the pipeline", async () => {
    const env = mcpEnv(`mcp-${uid()}`);
    const listed = await json(await request("/v1/tools", { env }));
    const remote = listed.tools.filter((t: any) => t.name.startsWith("t_"));
    expect(remote.map((t: any) => t.name).sort()).toEqual(["t_add", "t_bump", "t_echo"]);
    expect(remote.find((t: any) => t.name === "t_add").policy.risk).toBe("medium");

    const { messages, records } = await callTools(env, ["t_add", { a: 2, b: 3 }], ["t_echo", { text: 5 }]);
    expect(records[0]).toMatchObject({
      status: "succeeded",
      source: `mcp:${upstreams.mcp}`,
      output: { structured: { sum: 5 } },
    });
    // The remote schema, checked here
    expect(records[1]).toMatchObject({ status: "rejected", error: { code: "invalid_arguments" } });
    expect(messages[0]!.content).toContain("5");
  });

  it("refuses a tool whose definition changed after approval with tool_definition_changed, until an admin re-approves", async () => {
    const env = mcpEnv(`pin-${uid()}`);
    expect((await request("/v1/adapters", { env })).status).toBe(403); // the call key is not enough

    const before = remoteTool(await adaptersView(env), "t_echo");
    expect(before).toMatchObject({
      remoteName: "echo",
      state: "unapproved",
      callable: true,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const approved = await approve(env, [{ tool: "t_echo", hash: before.hash }]);
    expect(approved.status).toBe(200);
    expect((await json(approved)).approved).toEqual([{ tool: "t_echo", hash: before.hash, by: "dev-admin" }]);
    expect(remoteTool(await adaptersView(env), "t_echo")).toMatchObject({
      state: "approved",
      approved: { hash: before.hash, by: "dev-admin" },
    });
    expect((await callTools(env, ["t_echo", { text: "hi" }])).messages[0]!.content).toBe("echo: hi");

    // The server changes echo's description and says so (list_changed) in the response.
    expect((await callTools(env, ["t_bump", {}])).records[0].status).toBe("succeeded");
    const refused = await callTools(env, ["t_echo", { text: "hi" }]);
    expect(refused.records[0].error).toMatchObject({
      code: "tool_definition_changed",
      message: expect.stringMatching(/changed since an admin approved it/),
    });

    const after = remoteTool(await adaptersView(env), "t_echo");
    expect(after).toMatchObject({ state: "changed", callable: false, approved: { hash: before.hash } });
    expect(after.hash).not.toBe(before.hash);
    expect(after.definition.description).toMatch(/\(bumped\)$/);
    // What was approved, to compare with what the server lists now.
    expect(after.approved.definition).toMatchObject({ name: "echo" });
    expect(after.approved.definition.description).not.toBe(after.definition.description);
    // Approving a hash the admin did not see now is refused; the current one is accepted.
    expect((await approve(env, [{ tool: "t_echo", hash: before.hash }])).status).toBe(409);
    expect((await approve(env, [{ tool: "t_echo", hash: after.hash }])).status).toBe(200);
    expect((await callTools(env, ["t_echo", { text: "again" }])).messages[0]!.content).toBe("echo: again");
  });

  it("shows each server's state, and denies a definition until a new approval", async () => {
    const env = mcpEnv(`deny-${uid()}`);
    const server = await adaptersView(env);
    expect(server.status).toMatchObject({
      reachable: true,
      checkedAt: expect.any(Number),
      listedAt: expect.any(Number),
    });
    expect(server.status.lastError).toBeUndefined();

    const echo = remoteTool(server, "t_echo");
    const denied = await request("/v1/adapters/mcp/t/deny", {
      env,
      key: ADMIN_KEY,
      body: { tools: [{ tool: "t_echo", hash: echo.hash }] },
    });
    expect(denied.status).toBe(200);
    expect((await json(denied)).denied).toEqual([{ tool: "t_echo", hash: echo.hash, by: "dev-admin" }]);
    expect(remoteTool(await adaptersView(env), "t_echo")).toMatchObject({
      state: "denied",
      callable: false,
      denied: { hash: echo.hash, by: "dev-admin" },
    });
    const refused = await callTools(env, ["t_echo", { text: "hi" }]);
    expect(refused.records[0].error).toMatchObject({
      code: "tool_definition_changed",
      message: expect.stringMatching(/denied by an admin/),
    });
    expect((await callTools(env, ["t_add", { a: 1, b: 2 }])).records[0].status).toBe("succeeded"); // only that tool

    // Approving lifts the denial; denying the approved definition revokes the approval.
    expect((await approve(env, [{ tool: "t_echo", hash: echo.hash }])).status).toBe(200);
    expect(remoteTool(await adaptersView(env), "t_echo")).toMatchObject({ state: "approved", callable: true });
    expect((await callTools(env, ["t_echo", { text: "ok" }])).messages[0]!.content).toBe("echo: ok");
    expect(
      (await request("/v1/adapters/mcp/t/deny", { env, key: ADMIN_KEY, body: { tools: ["t_echo"] } })).status,
    ).toBe(200);
    const revoked = remoteTool(await adaptersView(env), "t_echo");
    expect(revoked).toMatchObject({ state: "denied", callable: false });
    expect(revoked.approved).toBeUndefined();
    expect(
      (
        await request("/v1/adapters/mcp/t/deny", {
          env,
          key: ADMIN_KEY,
          body: { tools: [{ tool: "t_echo", hash: "0".repeat(64) }] },
        })
      ).status,
    ).toBe(409);
  });

  it("answers unknown servers and tools on the approve route", async () => {
    const env = mcpEnv(`approve-${uid()}`);
    expect(
      (await request("/v1/adapters/mcp/nope/approve", { env, key: ADMIN_KEY, body: { tools: ["t_echo"] } })).status,
    ).toBe(404);
    const unknown = await approve(env, ["t_fail"]); // not in the tenant's allow-list of remote tools
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.code).toBe("unknown_tool");
    expect((await approve(env, [])).status).toBe(400);
  });

  it("sends the configured credential to the MCP server and never the caller's key", async () => {
    // Other files call the shared server without credentials meanwhile: look only at this test's URL.
    const marker = `hdr-${uid()}`;
    await callTools(mcpEnv(marker, `${upstreams.mcp}?run=${marker}`), ["t_add", { a: 1, b: 1 }]);
    const seen = (await (await fetch(`${upstreams.meter}/mcp-headers?marker=${marker}`)).json()) as Record<
      string,
      string
    >[];
    expect(seen.length).toBeGreaterThan(0);
    for (const headers of seen) expect(headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.stringify(seen)).not.toContain(CALL_KEY);
    expect(JSON.stringify(seen)).not.toContain(ADMIN_KEY);
  });
});
