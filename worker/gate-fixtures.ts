import * as v from "valibot";
import { defineTool } from "../src/tool";
import { MAX_SLEEP_MS, SLEEP_MS, SLEEP_REPORT, timedSleep } from "./demo/tools";

/**
 * Sleeps behind gates set in code: two tools sharing one group, and one tool gated per resource.
 * Test fixtures: in the catalogue so a configuration can list them, offered by no tenant unless its
 * config does (the gate tests in test/worker).
 */

const policy = { timeoutMs: MAX_SLEEP_MS + 5_000, idempotent: true } as const;

function pairTool(name: string) {
  return defineTool({
    name,
    description: "Sleep for ms milliseconds. Shares one gate (group fixture_pair, limit 1) with the other pair tool.",
    input: v.object({ ms: SLEEP_MS }),
    output: SLEEP_REPORT,
    policy: { ...policy, concurrency: { limit: 1, group: "fixture_pair" } },
    run: ({ ms }, ctx) => timedSleep(ms, ctx.signal),
  });
}

export const pairA = pairTool("fixture_pair_a");
export const pairB = pairTool("fixture_pair_b");

export const keyed = defineTool({
  name: "fixture_keyed",
  description: "Sleep for ms milliseconds on a resource: one sleep at a time per resource, resources in parallel.",
  input: v.object({ resource: v.pipe(v.string(), v.minLength(1), v.maxLength(64)), ms: SLEEP_MS }),
  output: SLEEP_REPORT,
  policy: { ...policy, concurrency: { limit: 1, key: ({ resource }) => resource } },
  run: ({ ms }, ctx) => timedSleep(ms, ctx.signal),
});

export const GATE_FIXTURE_TOOLS = [pairA, pairB, keyed] as const;
