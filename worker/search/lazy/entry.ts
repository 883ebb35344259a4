/**
 * The index builder and ranker of tool search (src/search/), a module apart from the Worker
 * (scripts/search-module.mjs → worker/search/library.generated.mjs) that worker/search-library.ts
 * imports on a tenant's first search: tenants without search mode never carry or compile it.
 */
export { buildToolIndex, SearchQueryError, searchTools, type ToolIndex } from "../../../src/search/tool-index";
export { readToolIndex } from "../../../src/search/index-text";
export { withNativeSearch } from "./native";
