import { FORMATS } from "../../../src/formats";
import { FormatSchemaError, type Format } from "../../../src/formats/format";
import type { Tool } from "../../../src/tool";
import { listingOf } from "./listing";
import { INFO_SECTION, joinEntries, renderLayout, type Entry } from "./layout";
import { PRECOMPUTED_LAYOUT } from "./key";
import { taskSupportOf } from "../../mcp/task-support";
import { buildToolIndex } from "../../../src/search/tool-index";
import { toolIndexText } from "../../../src/search/index-text";
import { indexedTools } from "../../search/setup";
import { SEARCH_INDEX_SECTION } from "./precomputed";
import type { Tenant } from "../tenant";
import { toolInfo } from "../tool-info";

/** One tool's entry in a format's listing: its definition, or its skipped entry. */
function formatEntry(format: Format, tool: Tool): Entry {
  try {
    return { text: JSON.stringify(format.toolDefinition(tool)), skipped: false };
  } catch (error) {
    if (!(error instanceof FormatSchemaError)) throw error;
    return { text: JSON.stringify({ name: tool.name, message: error.message }), skipped: true };
  }
}

/** A section from its entries; throws unless it is, byte for byte, what the Worker would answer. */
function section(entries: readonly Entry[], expected: string, what: string) {
  const spans: number[] = [];
  const text = joinEntries(entries, spans);
  if (text !== expected)
    throw new Error(`precomputed listings: the ${what} listing joined from its entries differs from the built one`);
  return { text, spans, skipped: entries.flatMap((entry, i) => (entry.skipped ? [i] : [])) };
}

/**
 * A tenant's listings, computed at build time (scripts/tools-check.ts) for its Worker to serve
 * without building them: every format's and GET /v1/tools's, each tool's entry placed, which tools
 * MCP 2026-07-28 lists as tasks and, for a tenant in search mode, its search index. `key` is
 * listingsKey() of the configuration it was built from.
 */
export function precomputeListings(tenant: Tenant, key: string): string {
  const tools = tenant.registry.list();
  const sections: Parameters<typeof renderLayout>[1] = {};
  for (const format of Object.values(FORMATS) as Format[]) {
    const entries = tools.map((tool) => formatEntry(format, tool));
    sections[format.name] = section(entries, JSON.stringify(listingOf(tools, format)), format.name);
  }
  const infos = tools.map((tool) => toolInfo(tool, tenant));
  sections[INFO_SECTION] = section(
    infos.map((info) => ({ text: JSON.stringify(info), skipped: false })),
    JSON.stringify({ tools: infos }),
    "GET /v1/tools",
  );
  // A tenant in search mode: its index too, so its Worker's first search reads it rather than builds it.
  if (tenant.config.search) {
    sections[SEARCH_INDEX_SECTION] = {
      text: toolIndexText(buildToolIndex(indexedTools(tenant))),
      spans: [],
      skipped: [],
    };
  }
  const tasks: Record<string, "optional" | "required"> = {};
  for (const tool of tools) {
    const support = taskSupportOf(tool);
    if (support !== "forbidden") tasks[tool.name] = support;
  }
  return renderLayout({ layout: PRECOMPUTED_LAYOUT, key, count: tools.length, tasks }, sections);
}
