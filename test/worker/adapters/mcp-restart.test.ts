import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIRST_BACKOFF_MS } from "../../../worker/adapters/breaker";
import { createRemoteTools } from "../../../worker/adapters/remote";
import { loadRemoteMcp } from "../../../worker/remote-mcp-library";
import { createTenant } from "../../../worker/tenant/tenant";
import { adapterConfig, callTools, uid, upstreams } from "../helpers/adapters";

/**
 * The MCP reference server (@modelcontextprotocol/server-everything) as a tenant's remote server,
 * restarted and killed mid-run: toolgate must start a new session by itself and report the
 * network faults as retryable upstream errors, like the HTTP adapter does. (One file: its tests
 * stop and start the one server.)
 */

const { url, control } = upstreams.everything;
// A tenant below is built directly, not by readyTenant, which would load the client.
await loadRemoteMcp();
const server = async (action: "start" | "stop" | "kill-on-post") => {
  const res = await fetch(`${control}/${action}`, { method: "POST" });
  if (!res.ok) throw new Error(`server-everything ${action}: ${await res.text()}`);
  return (await res.json()) as { running: boolean };
};

// echo is declared idempotent (retried twice); the long-running tool is not (its remote readOnlyHint is ignored).
const everythingEnv = () => ({
  TOOLGATE_CONFIG: adapterConfig(`everything-${uid()}`, {
    mcp: [{ name: "ev", url, prefix: "ev_", tools: ["echo", "trigger-long-running-operation"] }],
    policies: { ev_echo: { idempotent: true, retry: { attempts: 2, baseMs: 1, capMs: 5, jitter: false } } },
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

    await server("kill-on-post"); // the server dies as the call arrives: the call may have run, so it is not repeated
    const lost = await callTools(env, ["ev_trigger-long-running-operation", { duration: 5, steps: 5 }]);
    expect(lost.records[0]).toMatchObject({ status: "failed", attempts: 1, error: { code: "upstream_error" } });
    // Lost before or after the server sent its response headers (its SSE stream opens at once): both mid-call.
    expect(lost.records[0].error.message).toMatch(
      /^MCP server "ev" (did not answer|broke off its answer to) tools\/call: /,
    );
    expect((await (await fetch(`${control}/state`)).json()) as object).toMatchObject({ running: false });

    // Refused while down: retryable, so the idempotent echo is tried twice before it fails.
    const refused = await echo(env, "while down");
    expect(refused.records[0]).toMatchObject({ status: "failed", attempts: 2, error: { code: "upstream_error" } });
    expect(refused.records[0].error.message).toMatch(/^MCP server "ev" did not answer initialize: /);

    await server("start");
    const back = await echo(env, "back");
    expect(back.records[0]).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(back.messages[0]!.content).toBe("Echo: back");
  });
});

describe("listing a remote MCP server that is down", () => {
  it("backs off with a per-server breaker, probes one listing at a time, and serves the last list while refreshing", async () => {
    let clock = 1_000_000;
    const tenant = createTenant(
      adapterConfig(`breaker-${uid()}`, {
        mcp: [{ name: "ev", url, prefix: "ev_", tools: ["echo"], cacheTtlMs: 60_000 }],
      }),
    );
    const remote = createRemoteTools(tenant.adapters, { secrets: {}, now: () => clock });
    const [ev] = remote.servers;
    const listing = async () => {
      expect(ev!.refreshing).toBeDefined();
      await ev!.refreshing!.done;
    };
    await server("stop");

    expect(remote.known()).toEqual([[]]);
    await listing();
    expect(ev!.breaker).toEqual({ failures: 1, openUntil: clock + FIRST_BACKOFF_MS });
    // Its first request: initialize when the era is known (an earlier test met this server), else the discover probe.
    expect(ev!.failure?.message).toMatch(/^MCP server "ev" did not answer (initialize|server\/discover): /);
    remote.known();
    expect(ev!.refreshing).toBeUndefined(); // open: not asked again

    clock += FIRST_BACKOFF_MS; // half-open: one probe, however many requests come
    remote.known();
    const probe = ev!.refreshing;
    remote.known();
    expect(ev!.refreshing).toBe(probe);
    await listing();
    expect(ev!.breaker).toEqual({ failures: 2, openUntil: clock + 2 * FIRST_BACKOFF_MS }); // the backoff doubles

    await server("start");
    clock += FIRST_BACKOFF_MS;
    remote.known();
    expect(ev!.refreshing).toBeUndefined(); // still open, though the server is back
    clock += FIRST_BACKOFF_MS;
    expect(remote.known()).toEqual([[]]);
    await listing();
    expect(ev!.breaker).toEqual({ failures: 0, openUntil: 0 });
    expect(ev!.failure).toBeUndefined();
    const tools = remote.known();
    expect(tools.map((list) => list.map((tool) => tool.name))).toEqual([["ev_echo"]]);
    expect(ev!.refreshing).toBeUndefined(); // fresh for its time-to-live

    clock += 60_000; // stale: the last list is served at once while a new one is fetched behind it
    expect(remote.known()[0]).toBe(tools[0]);
    await listing();
    expect(remote.known()[0]!.map((tool) => tool.name)).toEqual(["ev_echo"]);
  });
});
