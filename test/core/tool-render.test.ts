import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { httpTool } from "../../src/adapters/http";
import { defineTool } from "../../src/tool";
import { callSummary } from "../../src/tool-render";

const base = { name: "t", description: "", input: v.object({ a: v.number() }), run: () => "" };

describe("render hints", () => {
  it("keeps a tool's render hints frozen, outside its hash", () => {
    const plain = defineTool(base);
    const rendered = defineTool({ ...base, render: { call: "Add {a}", result: "table" } });
    expect(rendered.render).toEqual({ call: "Add {a}", result: "table" });
    expect(Object.isFrozen(rendered.render)).toBe(true);
    // Presentation only: what a model sees (and pinning compares) does not change.
    expect(rendered.hash).toBe(plain.hash);
    expect(plain.render).toBeUndefined();
  });

  it.each([
    [{ result: "html" }, /render\.result: must be one of json, table, markdown, text/],
    [{ call: "" }, /render\.call: must be a string of 1 to 200/],
    [{ call: "x".repeat(201) }, /render\.call/],
    [{ script: "alert(1)" }, /render\.script: only "call" and "result" are known/],
    ["table", /invalid render: must be an object/],
  ])("refuses %j, naming the tool and field", (render, message) => {
    expect(() => defineTool({ ...base, render: render as never })).toThrow(message);
  });

  it("summarises a call from its arguments as text", () => {
    expect(callSummary("Add {a} and {b}", { a: 2, b: 3 })).toBe("Add 2 and 3");
    expect(callSummary("To {to}: {text}", { to: "ada", text: "line one\n\n  line two" })).toBe("To ada: line one line two");
    expect(callSummary("{x}", { x: { deep: [1, 2] } })).toBe('{"deep":[1,2]}');
    expect(callSummary("{long}", { long: "y".repeat(200) })).toBe(`${"y".repeat(79)}…`);
    // A name the arguments lack, an inherited property, arguments that are no object: empty, never an error.
    expect(callSummary("[{missing}] [{constructor}]", { a: 1 })).toBe("[] []");
    expect(callSummary("{a}", "not an object")).toBe("");
    // Markup stays the characters it was: the console shows summaries as text nodes.
    expect(callSummary("{a}", { a: "<img src=x onerror=alert(1)>" })).toBe("<img src=x onerror=alert(1)>");
  });

  it("takes render hints from an HTTP adapter's declaration", () => {
    const tool = httpTool({ name: "weather", description: "d", url: "https://api.example.com/w", render: { call: "Weather", result: "table" } });
    expect(tool.render).toEqual({ call: "Weather", result: "table" });
    expect(() => httpTool({ name: "weather", description: "d", url: "https://api.example.com/w", render: { result: "html" } as never })).toThrow(/render\.result/);
  });
});
