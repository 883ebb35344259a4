import { tool } from "@openai/agents-core";
import { z } from "zod";

export const add = tool({
  name: "add",
  description: "Add two numbers.",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => ({ sum: a + b }),
});
