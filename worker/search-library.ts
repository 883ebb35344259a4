/**
 * Tool search's index builder and ranker (src/search/, through worker/search/lazy/entry.ts), compiled
 * and evaluated on a tenant's first search. It is a module of its own beside the bundle
 * (search/library.generated.mjs, written by scripts/search-module.mjs; wrangler.toml's
 * find_additional_modules uploads it): tenants without search mode never load it. At worker/'s root for
 * the same reason as oauth-library.ts: the import's specifier is resolved from the bundle's root.
 */
export type SearchLibrary = typeof import("./search/lazy/entry");
export type { ToolIndex } from "./search/lazy/entry";

export function searchLibrary(): Promise<SearchLibrary> {
  return import("./search/library.generated.mjs");
}
