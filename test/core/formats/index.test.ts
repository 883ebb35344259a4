import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { FORMATS, detectFormat, getFormat } from "../../../src/formats";
import type { SampleCall } from "../../../src/formats/format";
import { FORMAT_NAMES } from "../../../src/formats/index";
import { sameCallBodies } from "./bodies";
import { replaceNode } from "../../fuzz-tree";

const bodies: [string, unknown][] = [
  [
    "openai",
    { object: "chat.completion", choices: [{ message: { role: "assistant", content: null, tool_calls: [] } }] },
  ],
  [
    "openai",
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "x", arguments: "{}" } }],
    },
  ],
  ["openai", { role: "assistant", content: "No tools needed." }],
  ["openai-responses", { object: "response", output: [] }],
  ["anthropic", { type: "message", role: "assistant", content: [{ type: "text", text: "Hi" }] }],
  ["gemini", { candidates: [] }],
  ["mcp", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "x" } }],
  ...Object.entries(sameCallBodies({ a: 1, b: 2 })),
];

describe("format registry", () => {
  it("lists every format by name", () => {
    for (const name of FORMAT_NAMES) expect(getFormat(name)?.name).toBe(name);
    expect(Object.keys(FORMATS).sort()).toEqual([...FORMAT_NAMES].sort());
    expect(getFormat("nope")).toBeUndefined();
    expect(getFormat("__proto__")).toBeUndefined();
  });

  it.each(bodies)("detects %s bodies, and no other format claims them", (name, body) => {
    expect(detectFormat(body)?.name).toBe(name);
    const claimants = Object.values(FORMATS)
      .filter((format) => format.detect(body))
      .map((format) => format.name);
    expect(claimants).toEqual([name]);
  });

  it.each(FORMAT_NAMES)("%s reads back the model output it writes (modelOutput → detect → decode)", (name) => {
    const format = FORMATS[name];
    const calls: SampleCall[] = [
      { id: "call_1", name: "add", args: { a: 1, b: 2 } },
      { id: "call_2", name: "echo", args: { text: "hi", nested: { list: [1, "two", null] } } },
    ];
    const body = format.modelOutput(calls);
    expect(detectFormat(body)?.name).toBe(name);
    const decoded = format.decode(body);
    if (!decoded.ok) throw new Error(decoded.message);
    expect(
      decoded.calls.map(({ name, arguments: args }) => ({
        name,
        args: typeof args === "string" ? JSON.parse(args) : args,
      })),
    ).toEqual(calls.map(({ name, args }) => ({ name, args })));
    // MCP's bare calls carry no id (its ids belong to JSON-RPC requests); every other format keeps them.
    if (name !== "mcp") expect(decoded.calls.map((call) => call.id)).toEqual(["call_1", "call_2"]);
  });

  it.each([[[]], [{}], [null], ["text"], [[{ type: "text", text: "hi" }]]])("detects nothing in %j", (body) => {
    expect(detectFormat(body)).toBeUndefined();
  });
});

describe("decoders", () => {
  const anyBody = fc.oneof(fc.jsonValue(), fc.anything(), fc.constantFrom(...bodies.map(([, body]) => body)));
  // Real bodies with one leaf replaced: near-misses are where decoders would slip.
  const mutated = fc
    .tuple(fc.constantFrom(...bodies.map(([, body]) => body)), fc.jsonValue(), fc.nat())
    .map(([body, replacement, seed]) => replaceNode(structuredClone(body), replacement, seed));

  it("never throw: any value gives calls with string ids and names, or a message", () => {
    fc.assert(
      fc.property(fc.oneof(anyBody, mutated), (body) => {
        for (const format of Object.values(FORMATS)) {
          expect(() => format.detect(body)).not.toThrow();
          const decoded = format.decode(body);
          if (decoded.ok) {
            for (const call of decoded.calls) {
              expect(typeof call.id === "string" && call.id.length > 0).toBe(true);
              expect(typeof call.name === "string" && call.name.length > 0).toBe(true);
            }
          } else {
            expect(typeof decoded.message).toBe("string");
            expect(decoded.message.length).toBeGreaterThan(0);
          }
        }
      }),
      { numRuns: 400 },
    );
  });

  it("turn a getter that throws into a message", () => {
    const hostile = Object.defineProperty({}, "choices", {
      get: () => {
        throw new Error("boom");
      },
      enumerable: true,
    });
    for (const format of Object.values(FORMATS)) {
      const decoded = format.decode(hostile);
      expect(decoded.ok).toBe(false);
    }
  });
});
