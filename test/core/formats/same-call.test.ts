import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { FORMATS, getFormat } from "../../../src/formats";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import { defineTool } from "../../../src/tool";
import type { CallResult } from "../../../src/result";
import { sameCallBodies } from "./bodies";

const add = defineTool({
  name: "add",
  description: "Add two numbers",
  input: v.object({ a: v.number(), b: v.number() }),
  output: v.object({ sum: v.number() }),
  run: ({ a, b }) => ({ sum: a + b }),
});
const options = { registry: createRegistry([add]), tenant: "t", now: () => 1_000 };

/** Decode the same call from every format and run it; ids differ where a format has none (MCP). */
async function runEverywhere(args: Record<string, unknown>): Promise<Map<string, CallResult>> {
  const results = new Map<string, CallResult>();
  for (const [name, body] of Object.entries(sameCallBodies(args))) {
    const decoded = getFormat(name)!.decode(body);
    if (!decoded.ok) throw new Error(`${name}: ${decoded.message}`);
    expect(decoded.calls).toHaveLength(1);
    results.set(name, await executeCall(decoded.calls[0]!, options));
  }
  return results;
}

/** The parts of a result that must not depend on the format. */
function essence(result: CallResult) {
  const { callId: _id, record, ...rest } = result;
  const { callId: _rid, ...recordRest } = record;
  return { ...rest, record: recordRest };
}

describe("the same call through every format", () => {
  it.each([
    ["a valid call", { a: 1, b: 2 }],
    ["invalid arguments", { a: 1, b: "2" }],
  ])("gives the same record and result (%s)", async (_label, args) => {
    const results = [...(await runEverywhere(args)).values()];
    const first = essence(results[0]!);
    for (const result of results.slice(1)) expect(essence(result)).toEqual(first);
    expect(first.ok).toBe(!("b" in args && typeof args.b === "string"));
  });

  it("answers each format with the id it decoded", async () => {
    const results = await runEverywhere({ a: 2, b: 3 });
    const openai = FORMATS.openai.encode([results.get("openai")!]);
    expect(openai.messages[0]).toEqual({ role: "tool", tool_call_id: "call_1", content: '{"sum":5}' });
    const anthropic = FORMATS.anthropic.encode([results.get("anthropic")!]);
    expect(anthropic.message.content[0]!.tool_use_id).toBe("call_1");
    const gemini = FORMATS.gemini.encode([results.get("gemini")!]);
    expect(gemini.content.parts[0]).toEqual({
      functionResponse: { id: "call_1", name: "add", response: { output: { sum: 5 } } },
    });
    expect(FORMATS.mcp.encode([results.get("mcp")!])).toEqual({
      results: [{ content: [{ type: "text", text: '{"sum":5}' }], structuredContent: { sum: 5 } }],
    });
  });
});
