import type { Catalog } from "./catalog";
import { SOURCE_HASH } from "./source-hash.generated";

/** Bumped when the layout of a precomputed listings file changes (listings-precomputed.ts). */
export const PRECOMPUTED_LAYOUT = 1;

const encoder = new TextEncoder();

/**
 * What a tenant's listings depend on, hashed: the layout, the sources of this build (the formats'
 * conversions, the adapters' builders, tool-info), the code tools the configuration may pick (their
 * public definitions' hashes, policy included) and the configuration as parsed JSON. The build
 * computes it beside the listings; the Worker computes it again from what it runs, so a file made
 * for another configuration, catalogue or build is never served. Asynchronous: Web Crypto's digest
 * is native (a 1,000-tool configuration is 600 KB of JSON).
 */
export async function listingsKey(config: unknown, catalog: Catalog): Promise<string> {
  const tools = [...catalog.values()].map((tool) => `${tool.name}:${tool.hash}`).join(",");
  const text = `${PRECOMPUTED_LAYOUT}\n${SOURCE_HASH}\n${tools}\n${JSON.stringify(config)}`;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, "0")).join("");
}
