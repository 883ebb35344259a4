import * as v from "valibot";
import { defineTool } from "../../src/tool";
import { toolError } from "../../src/errors";

export const add = defineTool({
  name: "add",
  description: "Add two numbers",
  input: v.object({ a: v.number(), b: v.number() }),
  output: v.object({ sum: v.number() }),
  policy: { readOnly: true },
  run: ({ a, b }) => ({ sum: a + b }),
});

export const echo = defineTool({
  name: "echo",
  description: "Echo text back",
  input: v.object({ text: v.string() }),
  run: async ({ text }) => text,
});

export const boom = defineTool({
  name: "boom",
  description: "Always throws",
  input: v.object({ kind: v.optional(v.picklist(["plain", "upstream", "string"])) }),
  run: ({ kind }) => {
    if (kind === "upstream") throw toolError("upstream_error", "upstream said 502", { status: 502 });
    if (kind === "string") throw "a thrown string";
    throw new Error("kaput");
  },
});
