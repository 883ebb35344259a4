import { FORMAT_NAMES } from "../../../src/formats";
import type { McpTool } from "../../../src/formats/mcp";
import { entriesOf, joinEntries, keptIndexes, readLayout, sectionText, INFO_SECTION, type Layout } from "./layout";
import { listingsKey, PRECOMPUTED_LAYOUT } from "./key";
import { logLine } from "../../log";
import type { PrecomputedSource, Tenant } from "../tenant";

/**
 * Per tenant with precomputed listings (Tenant.precomputed): the check's outcome, the layout when the
 * file matches, null when the tenant builds its listings. Outcomes only, never the promise of one: a
 * promise made in one request and awaited by another never settles in workerd once the first request
 * has ended, so requests that come before the first check settles each make their own.
 */
const checked = new WeakMap<Tenant, Layout | null>();

const SECTIONS = [...FORMAT_NAMES, INFO_SECTION];

async function verified(tenant: Tenant, from: PrecomputedSource): Promise<Layout | undefined> {
  const unused = (why: string) => (
    logLine({ msg: "listings_precomputed_unused", tenant: tenant.name, source: from.source, why }), undefined
  );
  let text: string;
  try {
    text = (await from.load()).default;
  } catch (error) {
    return unused(`not loaded: ${error instanceof Error ? error.message : String(error)}`);
  }
  const layout = typeof text === "string" ? readLayout(text, PRECOMPUTED_LAYOUT, SECTIONS) : undefined;
  if (!layout) return unused("not a listings file of this layout");
  const names = tenant.registry.names();
  if (layout.header.count !== names.length) return unused("other tools");
  if (layout.header.key !== (await listingsKey(from.config, tenant, from.catalog)))
    return unused("computed for another configuration or build");
  return layout;
}

/**
 * Loads and checks the tenant's precomputed listings, once per isolate, before a listing is answered
 * (a mismatch is logged, and the tenant builds its listings as it would without them).
 */
export async function preparePrecomputed(tenant: Tenant): Promise<void> {
  if (!tenant.precomputed || checked.has(tenant)) return;
  const layout = await verified(tenant, tenant.precomputed);
  checked.set(tenant, layout ?? null);
}

/** The section holding the build's search index of a tenant in search mode (scripts/tools-check.ts). */
export const SEARCH_INDEX_SECTION = "search-index";

/** The build's search index text of the tenant, once preparePrecomputed resolved; else undefined. */
export function precomputedSearchIndex(tenant: Tenant): string | undefined {
  const layout = layoutOf(tenant);
  const section = layout?.header.sections[SEARCH_INDEX_SECTION];
  if (!layout || !section || !Number.isSafeInteger(section.at) || !Number.isSafeInteger(section.length))
    return undefined;
  return section.at >= 0 && section.length >= 0 && section.at + section.length <= layout.body.length
    ? sectionText(layout, SEARCH_INDEX_SECTION)
    : undefined;
}

/** The tenant's checked precomputed listings, once preparePrecomputed resolved; else undefined. */
function layoutOf(tenant: Tenant): Layout | undefined {
  return checked.get(tenant) ?? undefined;
}

/**
 * A format's listing (or, for INFO_SECTION, GET /v1/tools's) as the JSON text the Worker would
 * write, from the precomputed entries; undefined when the tenant has none.
 */
export function precomputedListing(tenant: Tenant, section: string, allowed?: ReadonlySet<string>): string | undefined {
  const layout = layoutOf(tenant);
  if (!layout) return undefined;
  if (!allowed) return sectionText(layout, section);
  const entries = entriesOf(layout, section, keptIndexes(tenant.registry.names(), allowed));
  return entries && joinEntries(entries);
}

/** MCP tools/list's listing: how many tools it lists (skipped ones left out), and a page of them. */
export interface McpListing {
  length: number;
  page(offset: number, end: number, modern: boolean): McpTool[];
}

/** The whole MCP listing (no allow-list) per tenant, its pages parsed once: the built path caches too. */
const MAX_KEPT_PAGES = 64;
const wholeMcp = new WeakMap<Tenant, McpListing>();

export function precomputedMcp(tenant: Tenant, allowed?: ReadonlySet<string>): McpListing | undefined {
  if (!allowed) {
    const kept = wholeMcp.get(tenant);
    if (kept) return kept;
  }
  const layout = layoutOf(tenant);
  if (!layout) return undefined;
  const names = tenant.registry.names();
  const kept = keptIndexes(names, allowed);
  const entries = entriesOf(layout, "mcp", kept);
  if (!entries) return undefined;
  const listed = kept.flatMap((i, k) => (entries[k]!.skipped ? [] : [{ name: names[i]!, text: entries[k]!.text }]));
  const { tasks } = layout.header;
  const pages = new Map<string, McpTool[]>();
  const listing: McpListing = {
    length: listed.length,
    page(offset, end, modern) {
      const key = `${offset}:${end}:${modern}`;
      let tools = pages.get(key);
      if (tools) return tools;
      const chosen = listed.slice(offset, end);
      tools = JSON.parse(`[${chosen.map((entry) => entry.text).join(",")}]`) as McpTool[];
      // As withTaskSupport (mcp/tools.ts) adds it to a built definition.
      if (modern) {
        tools = tools.map((definition, i) => {
          const { name } = chosen[i]!;
          const support = Object.hasOwn(tasks, name) ? tasks[name] : undefined;
          return support === undefined ? definition : { ...definition, execution: { taskSupport: support } };
        });
      }
      // Kept only for the whole listing (an allow-listed one lives for its request), and bounded: a
      // cursor is any offset a client sends.
      if (!allowed) {
        if (pages.size >= MAX_KEPT_PAGES) pages.clear();
        pages.set(key, tools);
      }
      return tools;
    },
  };
  if (!allowed) wholeMcp.set(tenant, listing);
  return listing;
}
