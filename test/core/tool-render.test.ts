import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { httpTool } from "../../src/adapters/http";
import { defineTool } from "../../src/tool";
import { callSummary, schemaDefaults } from "../../src/tool-render";
import sampleMedia from "../../tools/sample_media";

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
    expect(callSummary("To {to}: {text}", { to: "ada", text: "line one\n\n  line two" })).toBe(
      "To ada: line one line two",
    );
    expect(callSummary("{x}", { x: { deep: [1, 2] } })).toBe('{"deep":[1,2]}');
    expect(callSummary("{long}", { long: "y".repeat(200) })).toBe(`${"y".repeat(79)}…`);
    // A name the arguments lack, an inherited property, arguments that are no object: empty, never an error.
    expect(callSummary("[{missing}] [{constructor}]", { a: 1 })).toBe("[] []");
    expect(callSummary("{a}", "not an object")).toBe("");
    // Markup stays the characters it was: the console shows summaries as text nodes.
    expect(callSummary("{a}", { a: "<img src=x onerror=alert(1)>" })).toBe("<img src=x onerror=alert(1)>");
  });

  it("fills what a call leaves out with its schema's defaults", () => {
    const defaults = schemaDefaults(sampleMedia.inputSchema);
    expect(defaults).toEqual({ title: "Sample", hz: 440 });
    const template = sampleMedia.render!.call!;
    expect(callSummary(template, {}, defaults)).toBe("Media sample “Sample” (440 Hz)");
    expect(callSummary(template, { title: "Tones", hz: 220 }, defaults)).toBe("Media sample “Tones” (220 Hz)");
    // A value given wins, even null; arguments that are no object take no defaults.
    expect(callSummary("[{title}]", { title: null }, defaults)).toBe("[null]");
    expect(callSummary("[{title}]", "not an object", defaults)).toBe("[]");
    const schema = { type: "object", properties: { a: { type: "number" }, b: { default: false } } };
    expect(schemaDefaults(schema)).toEqual({ b: false });
    const hostile = schemaDefaults(JSON.parse('{"properties":{"__proto__":{"default":{"polluted":true}}}}'));
    expect(Object.getPrototypeOf(hostile)).toBe(Object.prototype);
    expect(callSummary("{__proto__}", {}, hostile)).toBe('{"polluted":true}');
    expect(schemaDefaults("not a schema")).toEqual({});
  });

  it("takes render hints from an HTTP adapter's declaration", () => {
    const tool = httpTool({
      name: "weather",
      description: "d",
      url: "https://api.example.com/w",
      render: { call: "Weather", result: "table" },
    });
    expect(tool.render).toEqual({ call: "Weather", result: "table" });
    expect(() =>
      httpTool({
        name: "weather",
        description: "d",
        url: "https://api.example.com/w",
        render: { result: "html" } as never,
      }),
    ).toThrow(/render\.result/);
  });
});
