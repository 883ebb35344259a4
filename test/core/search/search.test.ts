import { describe, expect, it } from "vitest";
import { githubQueries, githubTools } from "../../../bench/search/github-catalog";
import { stem, termsOf } from "../../../src/search/terms";
import {
  buildToolIndex,
  MAX_QUERY_LENGTH,
  SearchQueryError,
  searchTools,
  type ToolIndex,
} from "../../../src/search/tool-index";
import { defineTool } from "../../../src/tool";
import * as v from "valibot";

const tool = (name: string, description: string, tags?: string[]) =>
  defineTool({ name, description, input: v.object({ id: v.string() }), ...(tags ? { tags } : {}), run: () => "ok" });

describe("search terms", () => {
  it("splits names at case changes and separators, lower-cases and folds endings", () => {
    expect(termsOf("listPullRequests repos_create-fork")).toEqual([
      "list",
      "pull",
      "request",
      "repo",
      "create",
      "fork",
    ]);
    expect(["repositories", "labels", "labeled", "branches", "status"].map(stem)).toEqual([
      "repository",
      "label",
      "label",
      "branch",
      "status",
    ]);
  });

  it("keeps letters of any script and cuts unspaced scripts into characters", () => {
    expect(termsOf("добавить числа")).toEqual(["добавить", "числа"]);
    expect(termsOf("检索api")).toEqual(["检", "索", "api"]);
    expect(termsOf("🚀 .*+?^$ {}()|[]\\")).toEqual([]);
  });
});

describe("tool search", () => {
  const index = buildToolIndex([
    tool("add", "Add two numbers."),
    tool("send_message", "Send a message to someone.", ["chat"]),
    tool("weather_get", "Current weather for a city."),
  ]);

  it("ranks by name, description and tags, and hides what the caller may not use", () => {
    expect(searchTools(index, "send a chat message").names[0]).toBe("send_message");
    expect(searchTools(index, "what's the weather in Paris").names).toEqual(["weather_get"]);
    expect(searchTools(index, "send a message", { visible: (name) => name !== "send_message" }).names).toEqual([]);
  });

  it("refuses empty and over-long queries and out-of-range limits, naming the problem", () => {
    const refusal = (query: string, limit?: number) => {
      try {
        searchTools(index, query, limit === undefined ? {} : { limit });
      } catch (error) {
        expect(error).toBeInstanceOf(SearchQueryError);
        return (error as Error).message;
      }
      return expect.unreachable("expected a SearchQueryError");
    };
    expect(refusal(" \n\t")).toMatch(/query is empty/);
    expect(refusal("a".repeat(MAX_QUERY_LENGTH + 1))).toMatch(/at most 500/);
    expect(refusal("add", 0)).toMatch(/limit must be an integer from 1 to 20/);
    expect(refusal("add", 2.5)).toMatch(/limit/);
  });

  it("answers no tools and a note for queries without words or without matches", () => {
    expect(searchTools(index, "🚀🔥 (.*)+$ [^]{} \\\\")).toEqual({
      names: [],
      note: expect.stringMatching(/no words/),
    });
    expect(searchTools(index, "résumé 東京 مرحبا")).toEqual({ names: [], note: expect.stringMatching(/no tool/) });
  });
});

describe("tool search over GitHub's REST API (bench/search)", () => {
  const tools = githubTools();
  const index: ToolIndex = buildToolIndex(tools);
  const queries = githubQueries();

  it("imports about a thousand operations, and every labelled answer is one of them", () => {
    expect(tools.length).toBeGreaterThan(1000);
    const names = new Set(tools.map((t) => t.name));
    expect(queries.length).toBeGreaterThanOrEqual(50);
    for (const { expected } of queries) expect(names, expected).toContain(expected);
  });

  it("has the right tool in the top 5 for at least 90% of the labelled requests", () => {
    const found = queries.filter(({ query, expected }) => searchTools(index, query).names.includes(expected));
    expect(found.length / queries.length).toBeGreaterThanOrEqual(0.9);
  });

  it("answers a query of the longest length with every word matching, in bounded time", () => {
    const words = [...new Set(tools.flatMap((t) => t.name.split(/[_-]/)))].join(" ").slice(0, MAX_QUERY_LENGTH);
    const started = performance.now();
    const answer = searchTools(index, words, { limit: 20 });
    expect(answer.names).toHaveLength(20);
    // Generous bound for a loaded machine: the point is that it does not grow with the query's length.
    expect(performance.now() - started).toBeLessThan(100);
  });
});
