import * as v from "valibot";
import { MAX_SEARCH_RESULTS } from "../../src/search/limits";
import { intIn } from "../tenant/int-in";
import { toolName } from "../tenant/tool-name";

/**
 * Search mode (docs/search.md): listings show the pinned tools and a search tool instead of every
 * tool; the search tool answers the best matches' definitions, and calls go by name as before.
 */
export const SearchConfigSchema = v.strictObject({
  /** The search tool's name. */
  tool: v.optional(toolName, "search_tools"),
  /** Tools listed beside the search tool. */
  pinned: v.optional(v.array(toolName), []),
  /** How many tools a search answers when the model does not say (1 to MAX_SEARCH_RESULTS). */
  results: v.optional(intIn(1, MAX_SEARCH_RESULTS), 5),
  /** The keys (by name) whose listings are in search mode; absent: every caller's. */
  keys: v.optional(v.array(v.string())),
});

export type SearchConfig = v.InferOutput<typeof SearchConfigSchema>;
