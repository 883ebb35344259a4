import { describe, expect, it } from "vitest";
import { FORMATS, type FormatName } from "../../../src/formats";
import { errorResult, imageResult, jsonResult, textResult } from "./results";

/** Where each format's answer keeps its items, one per result. */
const ITEMS: Record<FormatName, (answer: any) => unknown[]> = {
  openai: (answer) => answer.messages,
  "openai-responses": (answer) => answer.items,
  anthropic: (answer) => answer.message.content,
  gemini: (answer) => answer.content.parts,
  mcp: (answer) => answer.results,
};

describe("encodeResult", () => {
  const results = [textResult("call_a"), jsonResult("call_b"), imageResult("call_c"), errorResult("call_d")];
  for (const name of Object.keys(FORMATS) as FormatName[]) {
    it(`${name}: one result's item is the item encode puts in the answer for it`, () => {
      const format = FORMATS[name];
      expect(ITEMS[name](format.encode(results))).toEqual(results.map((result) => format.encodeResult(result)));
    });
  }
});
