import { readFileSync } from "node:fs";
import { join } from "node:path";
import { openApiTools } from "../../src/adapters/openapi";
import type { Tool } from "../../src/tool";

/** A labelled request: what a model might ask, and the tool that does it. */
export interface LabelledQuery {
  query: string;
  expected: string;
}

/** Files of this folder, from the repository root (benches and tests run there; run-ts moves the code). */
const here = (name: string) => join(process.cwd(), "bench/search", name);

/** GitHub's REST API (github-fixture.mjs) as toolgate's OpenAPI adapter imports it: one tool per operation. */
export function githubTools(): Tool[] {
  const document = JSON.parse(readFileSync(here("github-rest.generated.json"), "utf8")) as Record<string, unknown>;
  return openApiTools({ name: "github", document, outputSchemas: false });
}

/** The labelled requests written against that catalogue (github-queries.json). */
export function githubQueries(): LabelledQuery[] {
  return JSON.parse(readFileSync(here("github-queries.json"), "utf8")) as LabelledQuery[];
}

/**
 * Requests written after the ranker was tuned, without looking at its rankings (github-heldout.json):
 * its figure is the one to expect of other requests.
 */
export function githubHeldOut(): LabelledQuery[] {
  return JSON.parse(readFileSync(here("github-heldout.json"), "utf8")) as LabelledQuery[];
}
