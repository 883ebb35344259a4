import { describe, expect, it } from "vitest";
import * as v from "valibot";
import {
  GenerateContentResponse,
  type Content,
  type FunctionCall,
  type FunctionDeclaration,
  type Part,
} from "@google/genai";
import { gemini } from "../../../src/formats/gemini";
import { defineTool } from "../../../src/tool";
import { PNG, errorResult, imageResult, jsonResult, textResult } from "./results";

const withId: FunctionCall = { id: "fc-1", name: "add", args: { a: 1, b: 2 } };
const withoutId: FunctionCall = { name: "get_weather", args: { city: "Oslo" } };
const noArgs: FunctionCall = { name: "now" };
const parts: Part[] = [
  { text: "Checking.", thought: true },
  { functionCall: withId },
  { text: "Also:" },
  { functionCall: withoutId },
  { functionCall: noArgs },
];
const content: Content = { role: "model", parts };
// The SDK's response is a class with getters; decode must read instances, not only plain objects.
const response = Object.assign(new GenerateContentResponse(), {
  candidates: [{ index: 0, content, finishReason: "STOP" }],
});

describe("gemini", () => {
  it.each([
    ["a GenerateContentResponse", response],
    ["a Content", content],
    ["a parts array", parts],
  ])("decodes %s in order; ids are kept or generated with a recognisable prefix", (_label, body) => {
    expect(gemini.detect(body)).toBe(true);
    const decoded = gemini.decode(body);
    expect(decoded.ok).toBe(true);
    if (!decoded.ok) return;
    expect(decoded.calls.map(({ name, arguments: args }) => ({ name, args }))).toEqual([
      { name: "add", args: { a: 1, b: 2 } },
      { name: "get_weather", args: { city: "Oslo" } },
      { name: "now", args: {} },
    ]);
    expect(decoded.calls[0]!.id).toBe("fc-1");
    expect(decoded.calls[1]!.id).toMatch(/^toolgate-gemini-[0-9a-f-]{36}$/);
    expect(decoded.calls[2]!.id).not.toBe(decoded.calls[1]!.id);
  });

  it("decodes a response without candidates as no calls", () => {
    expect(gemini.decode({ candidates: [] })).toEqual({ ok: true, calls: [] });
  });

  it("rejects function calls without a name or with a non-string id", () => {
    const message = (body: unknown) => {
      const decoded = gemini.decode(body);
      return decoded.ok ? "" : decoded.message;
    };
    expect(message([{ functionCall: { args: {} } }])).toBe("parts[0].functionCall.name is missing.");
    expect(message({ parts: [{ functionCall: { id: 3, name: "x" } }] })).toBe(
      "parts[0].functionCall.id is a number, not a string.",
    );
    expect(message({ candidates: [{ content: { parts: [{ functionCall: "x" }] } }] })).toBe(
      "candidates[0].content.parts[0].functionCall must be an object.",
    );
    expect(message({ role: "model" })).toBe("Expected a GenerateContentResponse, a Content, or an array of parts.");
  });

  it("encodes functionResponse parts: output on success, error {code, message} on failure", () => {
    const decoded = gemini.decode(parts);
    if (!decoded.ok) throw new Error(decoded.message);
    const generated = decoded.calls[1]!.id;
    const answer = gemini.encode([jsonResult("fc-1"), textResult(generated), errorResult("fc-3"), imageResult("fc-4")]);
    const typed: Content = answer.content;
    expect(typed).toEqual({
      role: "user",
      parts: [
        { functionResponse: { id: "fc-1", name: "add", response: { output: { sum: 3 } } } },
        // An id toolgate generated is not echoed: Gemini never sent one.
        { functionResponse: { name: "get_weather", response: { output: "Sunny, 21°C" } } },
        {
          functionResponse: {
            id: "fc-3",
            name: "add",
            response: {
              error: { code: "invalid_arguments", message: 'b: Invalid type: Expected number but received "2"' },
            },
          },
        },
        {
          functionResponse: {
            id: "fc-4",
            name: "chart",
            response: { output: "Here is the chart\n[image: image/png]\n[resource: chart.png] https://x.test/c.png" },
            parts: [{ inlineData: { mimeType: "image/png", data: PNG } }],
          },
        },
      ],
    });
  });

  it("declares a FunctionDeclaration with Gemini's schema, without parameters when there are none", () => {
    const add = defineTool({
      name: "add",
      description: "Add",
      input: v.object({ a: v.number(), b: v.optional(v.number()) }),
      run: ({ a }) => a,
    });
    const { parameters, ...rest } = gemini.toolDefinition(add);
    const declaration: Omit<FunctionDeclaration, "parameters"> = rest;
    expect(declaration).toEqual({ name: "add", description: "Add" });
    expect(parameters).toEqual({
      type: "OBJECT",
      properties: { a: { type: "NUMBER" }, b: { type: "NUMBER" } },
      required: ["a"],
    });
    const now = defineTool({ name: "now", description: "Time", input: v.object({}), run: () => "12:00" });
    expect(gemini.toolDefinition(now)).toEqual({ name: "now", description: "Time" });
  });
});
