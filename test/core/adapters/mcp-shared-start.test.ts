import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpServer } from "../../../src/adapters/mcp";
import { knownEras } from "../../../src/adapters/mcp/era";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import type { Tool } from "../../../src/tool";
import { startMcpServer, type McpTestServer } from "../../servers/mcp-server";
import { startV2Server, type V2TestServer } from "../../servers/mcp-v2-server";
import { egressFor, until } from "./mcp-helpers";

/**
 * A remote server's session (2025: initialize) and era probe (server/discover) are started by one
 * call and awaited by every call that arrives meanwhile. The call that started them may give up
 * (cancelled, timed out, its request gone): the others must not fail with its reason.
 */

let legacy: McpTestServer;
let modern: V2TestServer;
beforeAll(async () => {
  legacy = await startMcpServer();
  modern = await startV2Server("modern");
});
afterAll(async () => {
  await legacy.close();
  await modern.close();
});

/** The egress fetch, except that a POST of `method` waits until the request's own signal aborts. */
function holding(url: string, method: string) {
  const base = egressFor(url);
  let held = 0;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string }) : undefined;
    if (body?.method === method && init?.signal) {
      held++;
      const signal = init.signal;
      await new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    }
    return base(input, init);
  };
  return { fetch, held: () => held };
}

function call(tools: Tool[], name: string, args: unknown, fetch: typeof globalThis.fetch, signal?: AbortSignal) {
  return executeCall(
    { id: `c_${Math.random()}`, name, arguments: args },
    { registry: createRegistry(tools), secrets: {}, fetch, ...(signal ? { signal } : {}) },
  );
}

const quiet = () => undefined;
/**
 * The joining call's way from executeCall to the shared start is microtasks only (no I/O, no timer):
 * once they have drained, it waits on the start.
 */
const microtasksDrained = () => new Promise((resolve) => setImmediate(resolve));

const source = (url: string) =>
  mcpServer(
    { name: "remote", url, prefix: "r_" },
    { fetch: egressFor(url), secrets: {}, log: { debug: quiet, info: quiet, warn: quiet, error: quiet } },
  );

const cases = [
  {
    what: "2025 session: a call that joined an initialize whose starter was cancelled starts its own",
    url: () => legacy.url,
    method: "initialize",
    forget: () => legacy.expireSessions(),
  },
  {
    what: "2026 probe: a call that joined a server/discover whose starter was cancelled probes itself",
    url: () => modern.url,
    method: "server/discover",
    forget: () => knownEras.delete(modern.url),
  },
];

describe("a remote server's start shared by concurrent calls", () => {
  it.each(cases)("$what and succeeds", async ({ url, method, forget }) => {
    const tools = await source(url()).tools();
    forget();
    const starter = holding(url(), method);
    const cancel = new AbortController();
    const first = call(tools, "r_echo", { text: "a" }, starter.fetch, cancel.signal);
    await until(() => starter.held() === 1, `the ${method} is on its way`);
    const second = call(tools, "r_echo", { text: "b" }, egressFor(url()));
    await microtasksDrained();
    cancel.abort(new Error("the caller left"));
    const [a, b] = await Promise.all([first, second]);
    expect(!a.ok && a.error.code).toBe("cancelled");
    expect(b.ok && b.output.content).toEqual([{ type: "text", text: "echo: b" }]);
  });
});
