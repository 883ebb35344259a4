import type { Catalog } from "../catalog";
import { taskSupportOf } from "../../mcp/task-support";
import { SOURCE_HASH } from "../../source-hash.generated";
import type { Tenant } from "../tenant";
import { toolInfo } from "../tool-info";

/** Bumped when the layout of a precomputed listings file changes (layout.ts). */
export const PRECOMPUTED_LAYOUT = 1;

const encoder = new TextEncoder();

/**
 * What a tenant's listings depend on, hashed: the layout, the sources of this build (the formats'
 * conversions, the adapters' builders, tool-info), the tenant's tools in order, its code tools as
 * listings show them (GET /v1/tools's entry, with effective policy and hash, and MCP task support:
 * the catalogue a Worker runs with may differ from the build's) and the configuration as parsed JSON
 * (declared tools, policies, approval rules, deny list). The build computes it beside the listings;
 * the Worker computes it again from what it runs, so a file made for another configuration,
 * catalogue or build is never served. Asynchronous: Web Crypto's digest is native (a 1,000-tool
 * configuration is 600 KB of JSON).
 */
export async function listingsKey(config: unknown, tenant: Tenant, catalog: Catalog): Promise<string> {
  const names = tenant.registry.names();
  const code = names
    .filter((name) => catalog.has(name))
    .map((name) => {
      const tool = tenant.registry.get(name)!;
      return `${JSON.stringify(toolInfo(tool, tenant))} ${taskSupportOf(tool)}`;
    });
  const text = [PRECOMPUTED_LAYOUT, SOURCE_HASH, names.join(","), ...code, JSON.stringify(config)].join("\n");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
