import { describe, expect, it } from "vitest";
import { applyBudget, cutPoint, outputText } from "../../src/budget";
import type { CallOutput } from "../../src/result";

describe("output budget", () => {
  it("leaves an output within budget untouched", () => {
    const output: CallOutput = { content: [{ type: "text", text: "hello" }] };
    expect(applyBudget(output, 5, "c1")).toBe(output);
  });

  it("cuts text to the budget and says where the rest is", () => {
    const output: CallOutput = {
      content: [
        { type: "text", text: "a".repeat(30) },
        { type: "text", text: "b".repeat(30) },
      ],
    };
    const cut = applyBudget(output, 40, "c1");
    expect(cut.truncated).toBe(true);
    expect(cut.content[0]).toEqual({ type: "text", text: `${"a".repeat(30)}\n${"b".repeat(9)}` });
    const note = cut.content[1];
    expect(note?.type === "text" && note.text).toContain("first 40 of 61 characters");
    expect(note?.type === "text" && note.text).toContain("/v1/calls/c1/result?offset=40");
    // The rest, read from the stored full text at that offset, completes the prefix exactly.
    expect(outputText(output).slice(40)).toBe("b".repeat(21));
  });

  it("drops structured output when cut and keeps images", () => {
    const output: CallOutput = {
      content: [{ type: "image", data: "AAAA", mimeType: "image/png" }],
      structured: { items: "x".repeat(100) },
    };
    const cut = applyBudget(output, 20, "c2");
    expect(cut.structured).toBeUndefined();
    expect(cut.content[0]).toEqual({ type: "image", data: "AAAA", mimeType: "image/png" });
    expect(cut.content[1]).toEqual({ type: "text", text: '{"items":"xxxxxxxxxx' });
  });

  it("never splits a surrogate pair", () => {
    expect(cutPoint("ab😀cd", 3)).toBe(2);
    expect(cutPoint("ab😀cd", 4)).toBe(4);
  });
});
