import { Hono } from "../hono-lazy";
import type { AppEnv } from "../env";
import { formatNamed } from "../formats";
import { toolListing, toolListingJson } from "../listing";
import { requireScope } from "../middleware/auth";
import { needRemoteTools } from "../middleware/tenant";
import { toolInfo } from "../tool-info";

export const tools = new Hono<AppEnv>()
  // Every tool with its effective policy (the console's badges) and schemas, in toolgate's own shape.
  .get("/", requireScope("call"), async (c) => {
    const tenant = await needRemoteTools(c, "all");
    const allowed = c.var.caller.tools;
    const list = tenant.registry.list().filter((tool) => !allowed || allowed.has(tool.name));
    return c.json({ tools: list.map((tool) => toolInfo(tool, tenant)) });
  })
  .get("/:format", requireScope("call"), async (c) => {
    const format = formatNamed(c.req.param("format"));
    const tenant = await needRemoteTools(c, "all");
    const allowed = c.var.caller.tools;
    if (allowed) return c.json(toolListing(tenant, format, allowed));
    return c.body(toolListingJson(tenant, format), 200, { "content-type": "application/json" });
  });
