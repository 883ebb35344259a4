import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { parseArguments, DEFAULT_LIMITS } from "../../../src/pipeline/arguments";
import { executeCall } from "../../../src/pipeline/execute";
import { executeBatch } from "../../../src/pipeline/batch";
import { createRegistry } from "../../../src/registry";
import { defineTool } from "../../../src/tool";
import { add, echo } from "../fixtures";

const limits = { maxArgumentBytes: 1000, maxArgumentDepth: 5 };
const nested = (depth: number): unknown => (depth === 0 ? 1 : { x: nested(depth - 1) });

describe("parseArguments refuses hostile input with a clear reason", () => {
  it.each([
    ["not JSON", "{a:1}", "invalid_json", "not valid JSON"],
    ["an array", "[1,2]", "invalid_arguments", "got an array"],
    ["a number", "42", "invalid_arguments", "got a number"],
    ["null", "null", "invalid_arguments", "got null"],
    ["oversized text", JSON.stringify({ s: "x".repeat(2000) }), "invalid_arguments", "too large"],
    ["__proto__ key", '{"__proto__":{"polluted":true}}', "invalid_arguments", '"__proto__"'],
    ["nested constructor key", '{"a":{"constructor":{"prototype":{}}}}', "invalid_arguments", '"constructor"'],
    ["prototype key", '{"prototype":1}', "invalid_arguments", '"prototype"'],
    ["too deep", JSON.stringify(nested(10)), "invalid_arguments", "nested too deeply"],
  ])("%s", (_name, raw, code, text) => {
    const result = parseArguments(raw, limits);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.code).toBe(code);
    expect(result.message).toContain(text);
  });

  it("bounds already-parsed input too (size, depth, non-JSON values)", () => {
    expect(parseArguments({ s: "x".repeat(5000) }, limits).ok).toBe(false);
    expect(parseArguments(nested(10), limits).ok).toBe(false);
    expect(parseArguments({ f: () => 1 }, limits).ok).toBe(false);
    expect(parseArguments({ d: new Date() }, limits).ok).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(parseArguments(cyclic, limits).ok).toBe(false);
  });

  it("accepts ordinary objects and empty input", () => {
    expect(parseArguments('{"a":[1,{"b":"c"}]}', DEFAULT_LIMITS)).toEqual({
      ok: true,
      value: { a: [1, { b: "c" }] },
      hasNull: false,
    });
    expect(parseArguments("  ", DEFAULT_LIMITS)).toEqual({ ok: true, value: {}, hasNull: false });
    expect(parseArguments('{"a":{"b":null}}', DEFAULT_LIMITS)).toMatchObject({ ok: true, hasNull: true });
    expect(parseArguments(undefined, DEFAULT_LIMITS)).toEqual({ ok: true, value: {}, hasNull: false });
  });

  it("never pollutes Object.prototype", async () => {
    await executeCall(
      { id: "p", name: "echo", arguments: '{"__proto__":{"polluted":true},"text":"x"}' },
      { registry: createRegistry([echo]) },
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("property: no input makes the pipeline throw", () => {
  const registry = createRegistry([
    add,
    echo,
    defineTool({
      name: "deep",
      description: "",
      input: v.object({ list: v.array(v.object({ k: v.string() })) }),
      run: (a) => a.list.length,
    }),
  ]);

  it("executeCall answers every call with a result", async () => {
    const anyArgs = fc.oneof(fc.string(), fc.json(), fc.jsonValue(), fc.anything(), fc.constant(undefined));
    const anyCall = fc.record({
      id: fc.oneof(fc.string(), fc.constant("")),
      name: fc.oneof(fc.constantFrom("add", "echo", "deep"), fc.string()),
      arguments: anyArgs,
    });
    await fc.assert(
      fc.asyncProperty(anyCall, async (call) => {
        const result = await executeCall(call, { registry, limits: { maxArgumentBytes: 10_000, maxArgumentDepth: 8 } });
        expect(typeof result.ok).toBe("boolean");
        expect(result.record.status).not.toBe("running");
        if (!result.ok) expect(result.error.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 400 },
    );
  });

  it("executeBatch survives junk call objects", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.anything(), { maxLength: 5 }), async (junk) => {
        const results = await executeBatch(junk as never, { registry });
        expect(results).toHaveLength(junk.length);
      }),
      { numRuns: 200 },
    );
  });
});
