import { Hono } from "hono";
import type { AppEnv } from "../env";
import { formatNamed } from "../formats";
import { toolListing } from "../listing";
import { requireScope } from "../middleware/auth";
import { toolInfo } from "../tool-info";

export const tools = new Hono<AppEnv>()
  // Every tool with its effective policy (the console's badges) and schemas, in toolgate's own shape.
  .get("/", requireScope("call"), (c) => c.json({ tools: c.var.tenant.registry.list().map((tool) => toolInfo(tool, c.var.tenant)) }))
  .get("/:format", requireScope("call"), (c) => c.json(toolListing(c.var.tenant, formatNamed(c.req.param("format")))));
