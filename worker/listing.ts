import { FormatSchemaError, type Format } from "../src/formats/format";
import type { Tenant } from "./tenant";

export interface Listing<Definition = unknown> {
  tools: Definition[];
  /** Tools this format cannot express (its schema subset), with the reason; absent when none. */
  skipped?: { name: string; message: string }[];
}

/**
 * The tenant's tools in a format's shape (GET /v1/tools/:format, MCP tools/list); computed once per
 * tenant view and format (a view's registry is fixed).
 */
export function toolListing<Definition>(tenant: Tenant, format: Format<Definition>): Listing<Definition> {
  const cached = tenant.listings.get(format.name) as Listing<Definition> | undefined;
  if (cached) return cached;
  const result: Listing<Definition> = { tools: [] };
  for (const tool of tenant.registry.list()) {
    try {
      result.tools.push(format.toolDefinition(tool));
    } catch (error) {
      if (!(error instanceof FormatSchemaError)) throw error;
      (result.skipped ??= []).push({ name: tool.name, message: error.message });
    }
  }
  tenant.listings.set(format.name, result);
  return result;
}
