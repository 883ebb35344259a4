// Tool search on a realistic large catalogue (GitHub's REST API, 1,223 operations, github-catalog.ts):
// listing tokens with and without search mode (o200k_base, gpt-tokenizer), the search's time in V8
// (Node; the isolate's engine), the index's build time, and how often the labelled request's tool is
// first and in the top 5. Usage: node scripts/run-ts.mjs bench/search/search.ts [ROUNDS=200]
import { encode } from "gpt-tokenizer";
import { FORMATS } from "../../src/formats";
import type { Format } from "../../src/formats/format";
import { readToolIndex, toolIndexText } from "../../src/search/index-text";
import { buildToolIndex, searchTools } from "../../src/search/tool-index";
import { createSearchTool } from "../../worker/search/tool";
import { withNativeSearch } from "../../worker/search/lazy/native";
import { listingOf } from "../../worker/tenant/listings/listing";
import { githubHeldOut, githubQueries, githubTools, type LabelledQuery } from "./github-catalog";

const ROUNDS = Number(process.env.ROUNDS ?? 200);
const tools = githubTools();
const queries = githubQueries();
const heldOut = githubHeldOut();

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

const builds: number[] = [];
let index = buildToolIndex(tools);
for (let i = 0; i < 10; i++) {
  const started = performance.now();
  index = buildToolIndex(tools);
  builds.push(performance.now() - started);
}
builds.sort((a, b) => a - b);

// A bundled tenant's first search reads the build's index instead (worker/search/prebuilt.ts).
const text = toolIndexText(index);
const names = tools.map((tool) => tool.name);
const reads: number[] = [];
for (let i = 0; i < 10; i++) {
  const started = performance.now();
  readToolIndex(text, names);
  reads.push(performance.now() - started);
}
reads.sort((a, b) => a - b);

/** How often a set's labelled tool is first and in the top 5, and the requests whose top 5 missed it. */
function accuracy(set: readonly LabelledQuery[]) {
  const result = { top1: 0, top5: 0, misses: [] as string[] };
  for (const { query, expected } of set) {
    const { names } = searchTools(index, query);
    if (names[0] === expected) result.top1++;
    if (names.includes(expected)) result.top5++;
    else result.misses.push(`"${query}" → ${expected} (got ${names.slice(0, 3).join(", ")})`);
  }
  return result;
}
const tuned = accuracy(queries);
const held = accuracy(heldOut);

const times: number[] = [];
for (let round = 0; round < ROUNDS; round++)
  for (const { query } of queries) {
    const started = performance.now();
    searchTools(index, query);
    times.push(performance.now() - started);
  }
times.sort((a, b) => a - b);

const search = createSearchTool(
  { tool: "search_tools", pinned: [], results: 5 },
  { index: async () => index, registry: () => undefined as never, visible: () => true },
);
const tokens = (value: unknown) => encode(JSON.stringify(value)).length;
const answer = (names: readonly string[]) => ({
  tools: names.map((name) => FORMATS.mcp.toolDefinition(tools.find((tool) => tool.name === name)!)),
});
const answers = queries.map(({ query }) => tokens(answer(searchTools(index, query).names)));
answers.sort((a, b) => a - b);

console.log(`GitHub REST API: ${tools.length} tools, ${queries.length} labelled requests, ${ROUNDS} rounds\n`);
console.log("| listing (o200k_base tokens) | every tool | search mode (search tool only) | fewer |");
console.log("| --- | --- | --- | --- |");
for (const format of Object.values(FORMATS) as Format[]) {
  const full = tokens(listingOf(tools, format));
  const small = tokens(listingOf([search], format));
  console.log(`| ${format.name} | ${full} | ${small} | ${(100 * (1 - small / full)).toFixed(2)}% |`);
}
// Where the API searches itself: what is sent (every definition, deferred) and what the model reads
// up front (Anthropic: only the non-deferred tools; OpenAI: each deferred function's name and description).
console.log("\n| native tool search (o200k_base tokens) | sent | read up front | fewer read than every tool |");
console.log("| --- | --- | --- | --- |");
for (const format of [FORMATS["openai-responses"], FORMATS.anthropic] as Format[]) {
  const full = listingOf(tools, format);
  const native = withNativeSearch(format.name, full, { tool: "search_tools", pinned: [] })!;
  const visible = (native.tools as { type?: string; name?: string; description?: string; defer_loading?: true }[])
    .filter((tool) => !tool.defer_loading || format.name === "openai-responses")
    .map((tool) => (tool.defer_loading ? { name: tool.name, description: tool.description } : tool));
  const [sent, read] = [tokens(native), tokens(visible)];
  console.log(`| ${format.name} | ${sent} | ${read} | ${(100 * (1 - read / tokens(full))).toFixed(2)}% |`);
}
console.log(
  `\nA search's answer (5 definitions, MCP shape): p50 ${percentile(answers, 0.5)} tokens, max ${answers.at(-1)}`,
);
console.log(`Search: p50 ${percentile(times, 0.5).toFixed(3)} ms, p99 ${percentile(times, 0.99).toFixed(3)} ms`);
console.log(`Index build: median ${percentile(builds, 0.5).toFixed(1)} ms (${index.bm25.vocabulary.length} terms)`);
const kb = (new TextEncoder().encode(text).length / 1024).toFixed(0);
console.log(`Index read from the build's text: median ${percentile(reads, 0.5).toFixed(1)} ms (${kb} KB)`);
const share = (n: number, of: number) => `${n}/${of} (${((100 * n) / of).toFixed(1)}%)`;
for (const [label, set, found] of [
  ["tuned on", queries, tuned],
  ["held out", heldOut, held],
] as const) {
  console.log(`${label}: top 1 ${share(found.top1, set.length)}, top 5 ${share(found.top5, set.length)}`);
  for (const miss of found.misses) console.log(`  missed: ${miss}`);
}
