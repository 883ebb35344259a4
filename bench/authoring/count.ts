/**
 * npm run bench:authoring — counts what a user writes for the same three tools in toolgate and in four
 * libraries (bench/authoring/<library>/<tool>/, every source typechecked by tsconfig.node.json) and
 * prints the table of docs/core.md: lines / files per tool.
 *
 * A line counts when it is not blank and not a comment. Not counted either: lines ending in
 * `// harness` (the comparison's own scaffolding, such as a function that hands a peer's server in),
 * and the outer braces of a `*.fragment.json` (the keys a tenant adds to its existing tenants/<name>.json).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isMain } from "../peers/is-main";

export const AUTHORING_DIR = "bench/authoring";
export const LIBRARIES = [
  ["toolgate", "toolgate"],
  ["mcp-sdk", "MCP SDK (`registerTool`)"],
  ["ai-sdk", "AI SDK (`tool()`)"],
  ["langchain", "LangChain (`tool()`)"],
  ["openai-agents", "OpenAI Agents (`tool()`)"],
] as const;
export const TOOLS = [
  ["add", "`add` (code)"],
  ["get_weather", "`get_weather` (HTTP: secret, timeout, 3 attempts, `{ tempC }` checked)"],
  ["mcp_import", "a remote MCP server's tools (bearer secret)"],
] as const;

/** The lines of one file that count. */
export function countedLines(path: string): string[] {
  let lines = readFileSync(path, "utf8").split("\n");
  if (path.endsWith(".fragment.json")) lines = lines.slice(1, lines.lastIndexOf("}"));
  let inBlock = false;
  return lines.filter((raw) => {
    const line = raw.trim();
    if (inBlock) {
      inBlock = !line.includes("*/");
      return false;
    }
    if (line.startsWith("/*")) {
      inBlock = !line.includes("*/");
      return false;
    }
    return line !== "" && !line.startsWith("//") && !line.endsWith("// harness");
  });
}

export interface Count {
  lines: number;
  files: number;
}

/** Lines and files of one library's version of one tool. */
export function count(library: string, tool: string, dir = AUTHORING_DIR): Count {
  const folder = join(dir, library, tool);
  const files = readdirSync(folder).filter((file) => /\.(ts|json)$/.test(file));
  return { files: files.length, lines: files.reduce((sum, file) => sum + countedLines(join(folder, file)).length, 0) };
}

/** The table of docs/core.md (markdown). */
export function renderTable(dir = AUTHORING_DIR): string {
  const header = `| tool | ${LIBRARIES.map(([, title]) => title).join(" | ")} |`;
  const rule = `| --- | ${LIBRARIES.map(() => "---").join(" | ")} |`;
  const rows = TOOLS.map(([tool, title]) => {
    const cells = LIBRARIES.map(([library]) => {
      const { lines, files } = count(library, tool, dir);
      return `${lines} lines, ${files} file${files === 1 ? "" : "s"}`;
    });
    return `| ${title} | ${cells.join(" | ")} |`;
  });
  return [header, rule, ...rows].join("\n");
}

if (isMain("count")) console.log(renderTable());
