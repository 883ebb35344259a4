/**
 * The files `npm run tool:add <name>` writes: the tool (tools/<name>.ts, one file, picked up by the
 * next build) and its test (test/core/tools/<name>.test.ts, run by `npm test` in Node).
 */
import { TOOL_NAME_PATTERN } from "../src/tool";

export const toolPath = (name: string) => `tools/${name}.ts`;
export const toolTestPath = (name: string) => `test/core/tools/${name}.test.ts`;

/** Why a name cannot be a new tool's, or undefined. */
export function toolNameProblem(name: string): string | undefined {
  if (!TOOL_NAME_PATTERN.test(name))
    return `"${name}" is not a tool name: letters, digits, _ and -, at most 64 (the chat APIs' names)`;
  if (name === "lib") return `"lib" is taken: tools/lib/ holds the code tools share`;
  return undefined;
}

export function renderTool(name: string): string {
  return `import * as v from "valibot";
import { defineTool } from "../src";

export default defineTool({
  name: "${name}",
  description: "What ${name} does and when to use it: the model reads this to decide.",
  input: v.object({ text: v.pipe(v.string(), v.maxLength(10_000)) }),
  output: v.object({ text: v.string() }),
  policy: { readOnly: true, idempotent: true, timeoutMs: 10_000 },
  // "demo": the demo tenant of \`npm run dev\` offers it. Tenants offer tools by name, "tag:<tag>" or "*".
  tags: ["demo"],
  // What run() reads and fetches; a tenant that offers the tool must map the secrets:
  // needs: { secrets: ["API_KEY"], egress: ["https://api.example.com"] },
  run: ({ text }) => ({ text }),
});
`;
}

export function renderToolTest(name: string): string {
  return `import { describe, expect, it } from "vitest";
import { createRegistry, executeCall } from "../../../src";
import tool from "../../../tools/${name}";

const call = (args: unknown) =>
  executeCall({ id: "call_1", name: tool.name, arguments: args }, { registry: createRegistry([tool]) });

describe("${name}", () => {
  it("answers", async () => {
    const result = await call({ text: "hello" });
    expect(result.ok && result.output.structured).toEqual({ text: "hello" });
  });

  it("refuses arguments its schema does not accept", async () => {
    const result = await call({ text: 42 });
    expect(!result.ok && result.error.code).toBe("invalid_arguments");
  });
});
`;
}
