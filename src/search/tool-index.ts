import type { Tool } from "../tool";
import { buildBm25, rankBm25, termsStartingWith, type Bm25Index, type Fields } from "./bm25";
import { stem, termsOf } from "./terms";

import { MAX_QUERY_LENGTH, MAX_QUERY_TERMS, MAX_SEARCH_RESULTS } from "./limits";

export { MAX_QUERY_LENGTH, MAX_QUERY_TERMS, MAX_SEARCH_RESULTS } from "./limits";

/**
 * Words a request uses for an action, and the words tool descriptions use for it (a query's word adds
 * these at a lower weight): "open a pull request" finds "Create a pull request".
 */
const RELATED_WORDS: Record<string, readonly string[]> = {
  add: ["create"],
  new: ["create"],
  open: ["create"],
  make: ["create"],
  start: ["create"],
  remove: ["delete"],
  erase: ["delete"],
  drop: ["delete"],
  show: ["get", "list"],
  fetch: ["get"],
  read: ["get"],
  view: ["get"],
  find: ["search", "list"],
  edit: ["update"],
  change: ["update"],
  modify: ["update"],
  rename: ["update"],
  all: ["list"],
  close: ["update"],
  store: ["create", "update"],
  save: ["create", "update"],
  set: ["update", "create"],
  history: ["list"],
  post: ["create"],
  write: ["create"],
  leave: ["create"],
  publish: ["create"],
  share: ["create"],
  ask: ["request"],
  logged: ["authenticated"],
};
/** RELATED_WORDS by the stems queries are cut into ("logged" → "logg"). */
const RELATED = new Map(Object.entries(RELATED_WORDS).map(([word, related]) => [stem(word), related.map(stem)]));

/**
 * Filler words that still say something: "my repositories", "who am I" are "for the authenticated
 * user" in API terms, "who" asks for a user. The words themselves are not searched (terms.ts drops them).
 */
const HINTS: readonly (readonly [RegExp, string])[] = [
  [/(?:^|[^\p{L}])(?:i|me|my|mine|myself)(?![\p{L}])/iu, "authenticated"],
  [/(?:^|[^\p{L}])(?:who|whom|whose)(?![\p{L}])/iu, "user"],
];
const RELATED_WEIGHT = 0.4;

/** Short forms APIs use for the same thing, both ways: "repository" finds `repos_delete`. */
const SHORT_FORMS: readonly (readonly [string, string])[] = [
  ["repository", "repo"],
  ["organization", "org"],
  ["configuration", "config"],
  ["environment", "env"],
  ["application", "app"],
  ["information", "info"],
  ["authentication", "auth"],
  ["pr", "pull"],
];
const SAME_WEIGHT = 0.8;
const SHORT_STEMS = SHORT_FORMS.map(([long, short]) => [stem(long), stem(short)] as const);
/** A query word this long or longer also finds the longer words it starts ("react" → "reaction"), weighed less. */
const PREFIX_MIN_LENGTH = 4;
const PREFIX_WEIGHT = 0.5;
/** The most longer words one query word adds, bounding a search's time. */
const PREFIX_EXPANSIONS = 8;

/** A tenant's tools as a search index: built once, searched many times. */
export interface ToolIndex {
  /** The tools' names, by document id. */
  readonly names: readonly string[];
  readonly bm25: Bm25Index;
}

/** An object (the search module carries no other code of src/: it is loaded apart, scripts/search-module.mjs). */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The names of an object schema's properties and their enumerated string values (and of objects one level down). */
function parameterWords(schema: unknown, depth = 0): string[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  return Object.entries(schema.properties).flatMap(([name, property]) => [
    name,
    ...(isObject(property) && Array.isArray(property.enum)
      ? property.enum.filter((value): value is string => typeof value === "string")
      : []),
    ...(depth < 1 ? parameterWords(property, depth + 1) : []),
  ]);
}

/** What a search compares of a tool: its name (weighted most), title, tags, description and parameter names. */
export function searchFields(tool: Pick<Tool, "name" | "title" | "description" | "tags" | "inputSchema">): Fields {
  const summary = /^[^\n]*?(?:\.\s|\n|$)/.exec(tool.description)?.[0] ?? "";
  return {
    name: { text: tool.name, weight: 4 },
    title: { text: tool.title ?? "", weight: 2 },
    tags: { text: (tool.tags ?? []).join(" "), weight: 2 },
    // The first line or sentence says what the tool does; the rest is detail.
    summary: { text: summary, weight: 2 },
    description: { text: tool.description.slice(summary.length), weight: 1 },
    parameters: { text: parameterWords(tool.inputSchema).join(" "), weight: 0.5 },
  };
}

/** The search index of these tools. */
export function buildToolIndex(tools: readonly Tool[]): ToolIndex {
  return { names: tools.map((tool) => tool.name), bm25: buildBm25(tools.map(searchFields)) };
}

/** A query that cannot be searched (empty, too long): the message says why. */
export class SearchQueryError extends Error {
  override name = "SearchQueryError";
}

/** The weighted terms of a query: its own words at 1, related words at RELATED_WEIGHT, at most MAX_QUERY_TERMS. */
export function queryTerms(query: string): Map<string, number> {
  const own = new Set<string>();
  for (const term of termsOf(query)) {
    if (own.size >= MAX_QUERY_TERMS) break;
    own.add(term);
  }
  const terms = new Map<string, number>([...own].map((term) => [term, 1]));
  // Several words pointing at one meaning ("open a new …" → create) add up, to at most a word of its own.
  const add = (term: string, weight: number) => {
    if (!own.has(term)) terms.set(term, Math.min(1, (terms.get(term) ?? 0) + weight));
  };
  for (const [words, term] of HINTS) if (words.test(query)) add(stem(term), RELATED_WEIGHT);
  for (const term of own) {
    for (const related of RELATED.get(term) ?? []) add(related, RELATED_WEIGHT);
    for (const [long, short] of SHORT_STEMS) {
      if (term === long) add(short, SAME_WEIGHT);
      if (term === short) add(long, SAME_WEIGHT);
    }
  }
  return terms;
}

export interface SearchOptions {
  /** How many tools to answer (1 to MAX_SEARCH_RESULTS; default 5). */
  limit?: number;
  /** Tools the caller may use; the others are never answered. */
  visible?: (name: string) => boolean;
}

/** A search's answer: the best tools' names, best first, and a note when nothing could match. */
export interface SearchAnswer {
  names: string[];
  /** Why nothing was found, for the model to read (absent when some tool matched). */
  note?: string;
}

/**
 * The tools that best match a request in words, best first. Throws SearchQueryError for an empty or
 * over-long query or an out-of-range limit. A query with no searchable words (only punctuation or
 * emoji) or matching nothing answers no tools and a note.
 */
export function searchTools(index: ToolIndex, query: string, options: SearchOptions = {}): SearchAnswer {
  const limit = options.limit ?? 5;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_RESULTS)
    throw new SearchQueryError(`limit must be an integer from 1 to ${MAX_SEARCH_RESULTS}, not ${limit}`);
  if (query.trim() === "") throw new SearchQueryError("query is empty: say in words what the tool should do");
  if (query.length > MAX_QUERY_LENGTH)
    throw new SearchQueryError(`query is ${query.length} characters long; at most ${MAX_QUERY_LENGTH}`);
  const terms = queryTerms(query);
  if (terms.size === 0)
    return { names: [], note: "the query has no words to search for (only punctuation, symbols or common words)" };
  for (const [term, weight] of [...terms]) {
    if (weight < 1 || term.length < PREFIX_MIN_LENGTH) continue;
    for (const longer of termsStartingWith(index.bm25, term, PREFIX_EXPANSIONS))
      if (!terms.has(longer)) terms.set(longer, PREFIX_WEIGHT);
  }
  const { visible } = options;
  const hits = rankBm25(index.bm25, terms, limit, visible ? (id) => visible(index.names[id]!) : undefined);
  if (hits.length === 0) return { names: [], note: "no tool matches these words; try other words" };
  return { names: hits.map((hit) => index.names[hit.id]!) };
}
