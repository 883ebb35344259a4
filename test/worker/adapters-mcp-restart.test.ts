import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adapterConfig, callTools, uid, upstreams } from "./adapters-helpers";

/**
 * The MCP reference server (@modelcontextprotocol/server-everything) as a tenant's remote server,
 * restarted and killed mid-run: toolgate must start a new session by itself and report the
 * network faults as retryable upstream errors, like the HTTP adapter does.
 */

const { url, control } = upstreams.everything;
const server = async (action: "start" | "stop" | "kill-on-post") => {
  const res = await fetch(`${control}/${action}`, { method: "POST" });
  if (!res.ok) throw new Error(`server-everything ${action}: ${await res.text()}`);
  return (await res.json()) as { running: boolean; posts: number };
};

const everythingEnv = (over: Record<string, unknown> = {}) => ({
  TOOLGATE_CONFIG: adapterConfig(`everything-${uid()}`, {
    mcp: [{ name: "ev", url, prefix: "ev_", tools: ["echo", "trigger-long-running-operation"], ...over }],
  }),
});
const echo = (env: Record<string, unknown>, message: string) => callTools(env, ["ev_echo", { message }]);

beforeAll(() => server("start"));
afterAll(() => server("stop"));

describe("a remote MCP server that restarts", () => {
  it("gets a new session after a restart: the server's 400 for the unknown session is not the caller's problem", async () => {
    const env = everythingEnv();
    expect((await echo(env, "before")).messages[0]!.content).toBe("Echo: before");
    await server("stop");
    await server("start");
    const after = await echo(env, "after");
    expect(after.records[0]).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(after.messages[0]!.content).toBe("Echo: after");
  });

  it("a connection lost mid-call or refused is a retryable upstream_error, and calls recover once the server is back", async () => {
    const env = everythingEnv();
    expect((await echo(env, "before")).records[0].status).toBe("succeeded");

    await server("kill-on-post"); // the server dies as the call arrives: the request may have run
    const lost = await callTools(env, ["ev_trigger-long-running-operation", { duration: 5, steps: 5 }]);
    expect(lost.records[0]).toMatchObject({ status: "failed", attempts: 1, error: { code: "upstream_error" } });
    expect(lost.records[0].error.message).toMatch(/MCP server "ev"/);

    const refused = await echo(env, "while down");
    expect(refused.records[0]).toMatchObject({ status: "failed", error: { code: "upstream_error" } });

    await server("start");
    const back = await echo(env, "back");
    expect(back.records[0]).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(back.messages[0]!.content).toBe("Echo: back");
  });
});
