import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../worker/app";
import { loadConfigBlocks } from "../../../worker/config-blocks-library";
import { listingsKey } from "../../../worker/tenant/listings/key";
import { renderLayout, type Header } from "../../../worker/tenant/listings/layout";
import { precomputeListings } from "../../../worker/tenant/listings/precompute";
import { SEARCH_INDEX_SECTION } from "../../../worker/tenant/listings/precomputed";
import { checkTenant } from "../../../worker/tenant/tenant";
import { TEST_CATALOG } from "../../fixtures/catalog";
import { BASE, CALL_KEY, CALL_KEY_HASH } from "../helpers/requests";

// checkTenant parses the configuration here, outside readyTenant: the search block's schema first.
await loadConfigBlocks();

const SOURCE = "tenants/prebuilt.json";
/** Without TOOLGATE_CONFIG and the demo: the bundled configuration is the tenant's. */
const ENV = { ...env, TOOLGATE_DEMO: "false" };

/** A bundled tenant in search mode, under a name of its own. */
const config = () => ({
  name: `prebuilt-${crypto.randomUUID().slice(0, 8)}`,
  tools: ["add", "echo", "sample_table"],
  keys: [{ name: "call", hash: CALL_KEY_HASH, scopes: ["call"] }],
  search: {},
});

/** What the build writes for this configuration (scripts/tools-check.ts), computed the same way. */
async function precomputed(value: unknown): Promise<string> {
  const tenant = checkTenant(value, SOURCE, TEST_CATALOG);
  return precomputeListings(tenant, await listingsKey(value, tenant, TEST_CATALOG));
}

/** The file with its search index changed by `change` (every other section as it was). */
function withIndex(text: string, change: (index: { names: string[]; terms: string[]; postings: number[][] }) => void) {
  const end = text.indexOf("\n");
  const header = JSON.parse(text.slice(0, end)) as Header;
  const body = text.slice(end + 1);
  const slice = (at: number, length: number) => body.slice(at, at + length);
  const sections = Object.fromEntries(
    Object.entries(header.sections).map(([name, section]) => [
      name,
      {
        text: slice(section.at, section.length),
        spans:
          section.spans.length === 0 ? [] : (JSON.parse(slice(section.spans.at, section.spans.length)) as number[]),
        skipped: section.skipped,
      },
    ]),
  );
  const index = JSON.parse(sections[SEARCH_INDEX_SECTION]!.text);
  change(index);
  sections[SEARCH_INDEX_SECTION]!.text = JSON.stringify(index);
  const { sections: _, ...rest } = header;
  return renderLayout(rest, sections);
}

/** The names a search answers, through the bundled tenant's Worker. */
async function search(listings: string, value: unknown, query: string): Promise<string[]> {
  const app = createApp({
    catalog: TEST_CATALOG,
    bundled: { config: value, source: SOURCE, listings: async () => ({ default: listings }) },
  });
  const res = await app.request(
    `${BASE}/v1/calls/openai`,
    {
      method: "POST",
      headers: { authorization: `Bearer ${CALL_KEY}`, "content-type": "application/json" },
      body: JSON.stringify([
        {
          id: crypto.randomUUID(),
          type: "function",
          function: { name: "search_tools", arguments: JSON.stringify({ query }) },
        },
      ]),
    },
    ENV,
  );
  expect(res.status).toBe(200);
  const call = (
    (await res.json()) as { calls: { status: string; output: { structured: { tools: { name: string }[] } } }[] }
  ).calls[0]!;
  expect(call.status).toBe("succeeded");
  return call.output.structured.tools.map((tool) => tool.name);
}

describe("a bundled tenant's search index, built at build time", () => {
  it("is written beside its listings and read by its first search", async () => {
    const value = config();
    const text = await precomputed(value);
    expect(text).toContain(`"${SEARCH_INDEX_SECTION}"`);
    // A word no tool has, pointed at "add" in the file's index: only a search reading the file finds it.
    const marked = withIndex(text, (index) => {
      const at = index.terms.findIndex((term) => term > "zzqx");
      const place = at < 0 ? index.terms.length : at;
      index.terms.splice(place, 0, "zzqx");
      index.postings.splice(place, 0, [index.names.indexOf("add"), 1]);
    });
    expect(await search(marked, value, "zzqx")).toEqual(["add"]);
  });

  it("is built at the first search when the file's index is not one of these tools", async () => {
    const value = config();
    const other = withIndex(await precomputed(value), (index) => index.names.reverse());
    expect(await search(other, value, "return the text unchanged")).toContain("echo");
    expect(await search(other, value, "zzqx")).toEqual([]);
  });
});
