import { Hono } from "../hono-lazy";
import type { AppEnv } from "../env";
import { formatNamed } from "../formats";
import { toolListingJson } from "../tenant/listings/listing";
import { INFO_SECTION } from "../tenant/listings/layout";
import { precomputedListing } from "../tenant/listings/precomputed";
import { requireScope } from "../middleware/auth";
import { needListing } from "../middleware/tenant";
import { toolInfo } from "../tenant/tool-info";
import { listedTools } from "../search/mode";
import { nativeSearchListing } from "../search/native";

const JSON_TYPE = { "content-type": "application/json" };

export const tools = new Hono<AppEnv>()
  // Every tool with its effective policy (the console's badges) and schemas, in toolgate's own shape.
  .get("/", requireScope("call"), async (c) => {
    const tenant = await needListing(c);
    const allowed = listedTools(tenant, c.var.caller);
    const precomputed = precomputedListing(tenant, INFO_SECTION, allowed);
    if (precomputed !== undefined) return c.body(precomputed, 200, JSON_TYPE);
    const list = tenant.registry.list().filter((tool) => !allowed || allowed.has(tool.name));
    return c.json({ tools: list.map((tool) => toolInfo(tool, tenant)) });
  })
  .get("/:format", requireScope("call"), async (c) => {
    const format = formatNamed(c.req.param("format"));
    const tenant = await needListing(c);
    // In search mode, a format whose API searches tools itself lists them deferred, with its search.
    const native = await nativeSearchListing(tenant, format, c.var.caller);
    if (native !== undefined) return c.body(native, 200, JSON_TYPE);
    return c.body(toolListingJson(tenant, format, listedTools(tenant, c.var.caller)), 200, JSON_TYPE);
  });
