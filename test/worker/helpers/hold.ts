import { upstreams } from "./adapters";

/**
 * `hold`: an HTTP tool that waits at a latch upstream (test/servers/latch.ts) until the test opens it,
 * so "a call that runs longer than its request" is a call held open until the test says, never a timer.
 */

export const latch = (id: string) => ({
  open: () => fetch(`${upstreams.latches}/open/${id}`, { method: "POST" }),
  arrivals: async () => ((await (await fetch(`${upstreams.latches}/arrivals/${id}`)).json()) as { n: number }).n,
});

/** The `hold` tool's HTTP adapter entry, with this policy: it waits at the latch its `id` argument names. */
export function holdTool(policy: Record<string, unknown>) {
  return {
    name: "hold",
    description: "Waits at a latch until the test opens it.",
    method: "GET",
    url: `${upstreams.latches}/hold/{id}`,
    input: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    timeoutMs: 60_000,
    ...policy,
  };
}
