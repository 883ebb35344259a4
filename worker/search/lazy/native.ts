import type { ToolSearchEntries } from "../../../src/contract/tools";

/** A listing's shape (worker/tenant/listings/listing.ts Listing). */
interface Listing {
  tools: unknown[];
  skipped?: { name: string; message: string }[];
}

/**
 * The model API's own tool search, by format, where it has one: OpenAI's Responses API (`tool_search`,
 * the functions it may load marked `defer_loading`) and Anthropic's Messages API (the BM25 tool search
 * tool, the tools it may load marked `defer_loading`). Chat Completions, Gemini and MCP have none.
 */
export const NATIVE_SEARCH: ToolSearchEntries = {
  "openai-responses": { type: "tool_search" },
  anthropic: { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
};

/**
 * A listing as the API's tool search takes it: the API's search entry, the pinned tools, then every
 * other tool with `defer_loading: true` (never toolgate's search tool or a denied tool). Undefined for
 * a format whose API has no tool search.
 */
export function withNativeSearch(
  format: string,
  listing: Listing,
  search: { tool: string; pinned: readonly string[] },
  deny: readonly string[] = [],
): Listing | undefined {
  if (!Object.hasOwn(NATIVE_SEARCH, format)) return undefined;
  const entry = NATIVE_SEARCH[format as keyof ToolSearchEntries];
  const [pinnedNames, denied] = [new Set(search.pinned), new Set(deny)];
  const pinned: unknown[] = [];
  const deferred: unknown[] = [];
  for (const definition of listing.tools as { name: string }[]) {
    const { name } = definition;
    if (name === search.tool || denied.has(name)) continue;
    if (pinnedNames.has(name)) pinned.push(definition);
    else deferred.push({ ...definition, defer_loading: true });
  }
  return { tools: [entry, ...pinned, ...deferred], ...(listing.skipped ? { skipped: listing.skipped } : {}) };
}
