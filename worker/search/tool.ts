import * as v from "valibot";
import { toolError } from "../../src/errors";
import { FormatSchemaError } from "../../src/formats/format";
import { mcp, type McpTool } from "../../src/formats/mcp";
import type { JsonValue } from "../../src/json";
import type { Registry } from "../../src/registry";
import { MAX_QUERY_LENGTH, MAX_SEARCH_RESULTS } from "../../src/search/limits";
import { defineTool, type Tool } from "../../src/tool";
import { searchLibrary, type ToolIndex } from "../search-library";
import type { SearchConfig } from "./config";

/** What a search answers: the matching tools' full definitions (MCP's shape: JSON Schema), best first. */
export interface SearchResult {
  tools: McpTool[];
  /** Why no tool was found, when none was. */
  note?: string;
}

/** Who is searching: the tools they may use (a search never shows another). */
export interface SearchScope {
  /** The index of the tenant's tools (built on first search). */
  index(): Promise<ToolIndex>;
  /** Where the answered tools' definitions come from. */
  registry(): Registry;
  visible(name: string): boolean;
}

/** The definitions of these tools, in order; a tool MCP's shape cannot express is left out. */
function definitions(registry: Registry, names: readonly string[]): McpTool[] {
  return names.flatMap((name) => {
    const tool = registry.get(name);
    if (!tool) return [];
    try {
      return [mcp.toolDefinition(tool)];
    } catch (error) {
      if (error instanceof FormatSchemaError) return [];
      throw error;
    }
  });
}

/** The search tool's run over this scope. A bad query is invalid_arguments, with the reason. */
export function searchRun(config: SearchConfig, scope: SearchScope) {
  return async ({ query, limit }: { query: string; limit?: number | undefined }): Promise<JsonValue> => {
    const { index, registry, visible } = scope;
    const { searchTools, SearchQueryError } = await searchLibrary();
    try {
      const answer = searchTools(await index(), query, { limit: limit ?? config.results, visible });
      const tools = definitions(registry(), answer.names);
      const result: SearchResult = answer.note === undefined ? { tools } : { tools, note: answer.note };
      // Definitions are JSON (the MCP format's output), typed by their shape rather than as JsonValue.
      return result as unknown as JsonValue;
    } catch (error) {
      if (error instanceof SearchQueryError) throw toolError("invalid_arguments", error.message);
      throw error;
    }
  };
}

/**
 * The search tool of a tenant in search mode, searching `scope` (the tenant's tools less its deny
 * list); worker/search/mode.ts gives a caller with an allow-list a copy bound to it.
 */
export function createSearchTool(config: SearchConfig, scope: SearchScope): Tool {
  return defineTool({
    name: config.tool,
    title: "Search tools",
    description:
      "Find tools for a task. Describe the task in a few words; answers the best-matching tools' " +
      "definitions (name, description, input schema). Then call a tool by its name.",
    input: v.object({
      query: v.pipe(
        v.string(),
        v.maxLength(MAX_QUERY_LENGTH),
        v.description("What the tool should do, in words, e.g. 'open a pull request'."),
      ),
      limit: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(1),
          v.maxValue(MAX_SEARCH_RESULTS),
          v.description(`How many tools to answer (default ${config.results}).`),
        ),
      ),
    }),
    policy: { readOnly: true, idempotent: true, risk: "low" },
    tags: ["search"],
    run: searchRun(config, scope),
  });
}
