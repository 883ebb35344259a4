import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { DEFAULT_LIMITS, parseArguments } from "../../../src/pipeline/arguments";
import { executeCall } from "../../../src/pipeline/execute";
import { createRegistry } from "../../../src/registry";
import { defineTool, richResult } from "../../../src/tool";
import { add } from "../fixtures";

const refusal = (raw: unknown) => {
  const parsed = parseArguments(raw, DEFAULT_LIMITS);
  if (parsed.ok) return "accepted";
  expect(parsed.code).toBe("invalid_arguments");
  return parsed.issues?.map((issue) => `${issue.path}: ${issue.message}`).join("; ") ?? parsed.message;
};

describe("arguments: numbers JSON cannot carry exactly", () => {
  it("refuses a literal that overflows to ±Infinity, naming its path", () => {
    expect(refusal('{"a":1e309,"b":0}')).toBe("a: 1e309 is too large for a JSON number (it overflows to Infinity)");
    expect(refusal('{"items":[{"n":1},{"n":2},{"n":-1E400}]}')).toMatch(
      /^items\[2\]\.n: -1E400 is too large .*-Infinity/,
    );
  });

  it("refuses an integer literal beyond ±(2^53−1) in JSON text and keeps float literals", () => {
    expect(refusal('{"a":1,"b":9007199254740993}')).toMatch(/^b: the integer 9007199254740993 is beyond ±\(2\^53−1\)/);
    expect(refusal('{"a":-9007199254740992}')).toMatch(/^a: the integer -9007199254740992 is beyond/);
    expect(refusal('{"a":100000000000000000000}')).toMatch(/^a: the integer 100000000000000000000 is beyond/);
    expect(refusal(`{"a":[${"9".repeat(300)}]}`)).toMatch(/^a\[0\]: an integer of 300 digits is beyond/);
    expect(refusal(`{"a":[${"9".repeat(400)}]}`)).toBe(
      "a[0]: a number of 400 characters is too large for a JSON number (it overflows to Infinity)",
    );
    expect(refusal('{"odd key":{"x":[0,9007199254740993]}}')).toMatch(/^\["odd key"\]\.x\[1\]: the integer/);
    for (const ok of [
      '{"a":9007199254740991}',
      '{"a":-9007199254740991}',
      '{"a":1e20}',
      '{"a":1.5e300}',
      '{"a":1E308}',
      '{"a":"9007199254740993"}',
      '{"a":0.1}',
    ]) {
      expect(refusal(ok)).toBe("accepted");
    }
  });

  it("refuses, in already-parsed arguments, every number beyond ±(2^53−1) and every non-finite one", () => {
    expect(refusal({ a: Infinity })).toMatch(/^a: Infinity is not a JSON number/);
    expect(refusal({ a: [1, NaN] })).toBe("a[1]: NaN is not a JSON number");
    // biome-ignore lint/correctness/noPrecisionLoss: the literal a client would send, already rounded by JSON.parse
    expect(refusal({ b: { c: 9007199254740993 } })).toMatch(
      /^b\.c: 9007199254740992 is beyond ±\(2\^53−1\) .*may already have been rounded/,
    );
    // The literal is gone: 1e20 cannot be told from 100000000000000000000 here.
    expect(refusal({ a: 1e20 })).toMatch(/^a: 100000000000000000000 is beyond/);
    expect(refusal({ a: 9007199254740991, b: -0, c: [0.5, "1e309"] })).toBe("accepted");
  });

  it("answers invalid_arguments with the issue, and the tool never runs", async () => {
    let runs = 0;
    const registry = createRegistry([
      defineTool({ name: "count", description: "", input: v.object({ n: v.number() }), run: ({ n }) => (runs++, n) }),
    ]);
    const result = await executeCall({ id: "c1", name: "count", arguments: '{"n":9007199254740993}' }, { registry });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("invalid_arguments");
    expect(result.error.message).toMatch(/^Tool "count": n: the integer 9007199254740993 is beyond/);
    expect(result.error.issues).toEqual([
      { path: "n", message: expect.stringMatching(/^the integer 9007199254740993/) },
    ]);
    expect(result.record.status).toBe("rejected");
    expect(runs).toBe(0);
  });
});

describe("outputs JSON cannot represent are errors, never a null", () => {
  const registryOf = (returns: () => unknown) =>
    createRegistry([defineTool({ name: "out", description: "", input: v.object({}), run: returns as () => never })]);
  const failure = async (returns: () => unknown) => {
    const result = await executeCall({ id: "o", name: "out", arguments: "{}" }, { registry: registryOf(returns) });
    if (result.ok) return `succeeded with ${JSON.stringify(result.output)}`;
    expect(result.error.code).toBe("tool_error");
    return result.error.message;
  };

  it("names a non-finite number and where it is", async () => {
    expect(await failure(() => ({ sum: Infinity }))).toBe(
      'Tool "out" failed: The tool returned a value that is not JSON: Infinity at sum (JSON numbers must be finite).',
    );
    expect(await failure(() => ({ rows: [{ v: 1 }, { v: NaN }] }))).toMatch(
      /NaN at rows\[1\]\.v \(JSON numbers must be finite\)/,
    );
    expect(await failure(() => -Infinity)).toMatch(/-Infinity at the top level/);
    expect(await failure(() => ({ when: { toJSON: () => Infinity } }))).toMatch(/Infinity at when/);
    expect(await failure(() => ({ boxed: new Number(NaN) }))).toMatch(/NaN at boxed/);
  });

  it("names a BigInt, a cycle and a throwing toJSON", async () => {
    expect(await failure(() => ({ id: 10n }))).toBe(
      'Tool "out" failed: The tool returned a value that is not JSON: a BigInt at id.',
    );
    const node: Record<string, unknown> = { name: "root", children: [] };
    (node.children as unknown[]).push({ parent: node });
    expect(await failure(() => node)).toMatch(/a cycle at children\[0\]\.parent \(a value that contains itself\)/);
    expect(
      await failure(() => ({
        x: {
          toJSON: () => {
            throw new Error("nope");
          },
        },
      })),
    ).toMatch(/could not be read as JSON \(nope\)/);
  });

  it("checks the structured part of a rich result too", async () => {
    expect(await failure(() => richResult([{ type: "text", text: "ok" }], { score: Infinity } as never))).toBe(
      'Tool "out" failed: The tool\'s structured output is not JSON: Infinity at score (JSON numbers must be finite).',
    );
  });

  it("keeps real nulls, repeated references and the text 'null' as they are", async () => {
    const shared = { k: 1 };
    expect(await failure(() => ({ a: null, b: "nullable", c: [shared, shared], d: [undefined] }))).toBe(
      'succeeded with {"content":[{"type":"text",' +
        '"text":"{\\"a\\":null,\\"b\\":\\"nullable\\",\\"c\\":[{\\"k\\":1},{\\"k\\":1}],\\"d\\":[null]}"}],' +
        '"structured":{"a":null,"b":"nullable","c":[{"k":1},{"k":1}],"d":[null]}}',
    );
  });

  it('refuses add\'s overflowing sum instead of storing {"sum":null}', async () => {
    const result = await executeCall(
      { id: "big", name: "add", arguments: '{"a":1e308,"b":1e308}' },
      { registry: createRegistry([add]) },
    );
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toMatch(/Infinity at sum/);
    expect(JSON.stringify(result.record)).not.toContain('"sum":null');
  });
});
