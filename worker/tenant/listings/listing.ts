import { FormatSchemaError, type Format } from "../../../src/formats/format";
import type { Tool } from "../../../src/tool";
import { precomputedListing } from "./precomputed";
import type { Tenant } from "../tenant";

export interface Listing<Definition = unknown> {
  tools: Definition[];
  /** Tools this format cannot express (its schema subset), with the reason; absent when none. */
  skipped?: { name: string; message: string }[];
}

/**
 * The tenant's tools in a format's shape (GET /v1/tools/:format, MCP tools/list); computed once per
 * tenant view and format (a view's registry is fixed). With `allowed` (a caller's allow-list), only
 * those tools, computed for the request.
 */
export function toolListing<Definition>(
  tenant: Tenant,
  format: Format<Definition>,
  allowed?: ReadonlySet<string>,
): Listing<Definition> {
  if (allowed)
    return listingOf(
      tenant.registry.list().filter((tool) => allowed.has(tool.name)),
      format,
    );
  const cached = tenant.listings.get(format.name) as Listing<Definition> | undefined;
  if (cached) return cached;
  const result = listingOf(tenant.registry.list(), format);
  tenant.listings.set(format.name, result);
  return result;
}

/**
 * A listing as JSON text (GET /v1/tools/:format): the build's precomputed one when the tenant has it
 * (precomputed.ts), else built. The whole listing is serialised once per tenant view and
 * format: a large tenant's listing is hundreds of KB, which would otherwise be stringified on every
 * request. With `allowed`, only those tools, for the request.
 */
export function toolListingJson(tenant: Tenant, format: Format, allowed?: ReadonlySet<string>): string {
  const precomputed = precomputedListing(tenant, format.name, allowed);
  if (precomputed !== undefined) return precomputed;
  if (allowed) return JSON.stringify(toolListing(tenant, format, allowed));
  const key = `${format.name}:json`;
  let text = tenant.listings.get(key) as string | undefined;
  if (text === undefined) tenant.listings.set(key, (text = JSON.stringify(toolListing(tenant, format))));
  return text;
}

/** The listing of these tools in a format: each definition, or why the format skips the tool. */
export function listingOf<Definition>(tools: readonly Tool[], format: Format<Definition>): Listing<Definition> {
  const result: Listing<Definition> = { tools: [] };
  for (const tool of tools) {
    try {
      result.tools.push(format.toolDefinition(tool));
    } catch (error) {
      if (!(error instanceof FormatSchemaError)) throw error;
      (result.skipped ??= []).push({ name: tool.name, message: error.message });
    }
  }
  return result;
}
