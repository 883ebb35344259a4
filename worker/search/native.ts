import type { ToolSearchEntries } from "../../src/contract/tools";
import type { Format } from "../../src/formats/format";
import { toolListing, type Listing } from "../tenant/listings/listing";
import type { Tenant } from "../tenant/tenant";
import type { SearchConfig } from "./config";
import { inSearchMode } from "./mode";

/**
 * The model API's own tool search, by format, where it has one: OpenAI's Responses API (`tool_search`,
 * the functions it may load marked `defer_loading`) and Anthropic's Messages API (the BM25 tool search
 * tool, the tools it may load marked `defer_loading`). Chat Completions, Gemini and MCP have none.
 */
const NATIVE_SEARCH: ToolSearchEntries = {
  "openai-responses": { type: "tool_search" },
  anthropic: { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
};

/** The format's API's tool search entry; undefined where the API has none. */
function nativeEntry(format: Format): object | undefined {
  return Object.hasOwn(NATIVE_SEARCH, format.name) ? NATIVE_SEARCH[format.name as keyof ToolSearchEntries] : undefined;
}

/**
 * A listing as the API's tool search takes it: the API's search entry, the pinned tools, then every
 * other tool with `defer_loading: true` (never toolgate's search tool or a denied tool). Undefined for
 * a format whose API has no tool search.
 */
export function withNativeSearch(
  format: Format,
  listing: Listing,
  search: Pick<SearchConfig, "tool" | "pinned">,
  deny: readonly string[] = [],
): Listing | undefined {
  const entry = nativeEntry(format);
  if (!entry) return undefined;
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

/** Per listing (kept per tenant view and allow-list by listing.ts), its native search listing's JSON. */
const kept = new WeakMap<Listing, string>();

/**
 * A search-mode caller's listing in a format whose API searches tools itself, as JSON text (every tool
 * the caller may use, deferred but the pinned ones); undefined for other formats and callers.
 */
export function nativeSearchListing(
  tenant: Tenant,
  format: Format,
  caller: { keyName: string; tools?: ReadonlySet<string> },
): string | undefined {
  const { search, deny } = tenant.config;
  if (!search || !nativeEntry(format) || !inSearchMode(search, caller)) return undefined;
  const listing = toolListing(tenant, format, caller.tools);
  let text = kept.get(listing);
  if (text === undefined) kept.set(listing, (text = JSON.stringify(withNativeSearch(format, listing, search, deny))));
  return text;
}
