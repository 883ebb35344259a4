import { type DeclaredTool, declareTools } from "../../../src/codemode/declarations";

/** The code tool's description: how to write a program, and the declaration of the tools it may call. */
export function codeToolDescription(tools: readonly DeclaredTool[]): string {
  return (
    "Run a JavaScript program (an async function body: use await, end with return) that calls the tools " +
    "below and answers its return value (JSON) and its console.log lines. Use it to chain calls and " +
    "compute over their results in one step. A failed tool call throws an Error with .code and .callId. " +
    "No network, no imports.\n\n" +
    declareTools(tools)
  );
}
