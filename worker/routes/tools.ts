import { Hono } from "hono";
import { FormatSchemaError } from "../../src/formats/format";
import type { AppEnv } from "../env";
import { formatNamed } from "../formats";
import { requireScope } from "../middleware/auth";
import type { Tenant } from "../tenant";
import { toolInfo } from "../tool-info";

interface Listing {
  tools: unknown[];
  /** Tools this format cannot express (its schema subset), with the reason; absent when none. */
  skipped?: { name: string; message: string }[];
}

/** The tenant's tools in a format's shape; computed once per tenant and format (the registry is fixed). */
function listing(tenant: Tenant, formatName: string): Listing {
  const cached = tenant.listings.get(formatName) as Listing | undefined;
  if (cached) return cached;
  const format = formatNamed(formatName);
  const result: Listing = { tools: [] };
  for (const tool of tenant.registry.list()) {
    try {
      result.tools.push(format.toolDefinition(tool));
    } catch (error) {
      if (!(error instanceof FormatSchemaError)) throw error;
      (result.skipped ??= []).push({ name: tool.name, message: error.message });
    }
  }
  tenant.listings.set(formatName, result);
  return result;
}

export const tools = new Hono<AppEnv>()
  // Every tool with its effective policy (the console's badges) and schemas, in toolgate's own shape.
  .get("/", requireScope("call"), (c) => c.json({ tools: c.var.tenant.registry.list().map((tool) => toolInfo(tool, c.var.tenant)) }))
  .get("/:format", requireScope("call"), (c) => c.json(listing(c.var.tenant, c.req.param("format"))));
