import { eventually } from "../../wait";
import { mcpServer, type McpServerDeclaration } from "../../../src/adapters/mcp";
import { createEgressFetch } from "../../../src/egress";
import type { CallEvent } from "../../../src/events";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import type { Tool } from "../../../src/tool";

/** Plain http to this server's origin only (its port of 127.0.0.1). */
export const egressFor = (url: string) => createEgressFetch({ allowHosts: [], allowHttpHosts: [new URL(url).origin] });

/** A remote MCP server's tools, with warnings about skipped tools collected. */
export function remote(url: string, over: Partial<McpServerDeclaration> = {}) {
  const warnings: string[] = [];
  const quiet = () => undefined;
  const source = mcpServer(
    { name: "remote", url, prefix: "r_", ...over },
    {
      fetch: egressFor(url),
      secrets: {},
      log: { debug: quiet, info: quiet, warn: (m) => warnings.push(m), error: quiet },
    },
  );
  return { source, warnings };
}

/** One call through the pipeline, with its events. */
export async function callTool(tools: Tool[], name: string, args: unknown, url: string) {
  const events: CallEvent[] = [];
  const result = await executeCall(
    { id: `c_${Math.random()}`, name, arguments: args },
    { registry: createRegistry(tools), secrets: {}, fetch: egressFor(url), hooks: { onEvent: (e) => events.push(e) } },
  );
  return { result, events, progress: events.flatMap((e) => (e.type === "call.progress" ? [e.progress] : [])) };
}

/** Wait for a condition, polling (bounded for hangs only; see test/wait.ts). */
export function until(check: () => boolean | Promise<boolean>, what = "the server saw it"): Promise<void> {
  return eventually(check, what);
}
