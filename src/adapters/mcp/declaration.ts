import * as v from "valibot";
import { AuthSchema, httpUrl, policyEntries, RateLimitSchema } from "../declarations";
import type { AdapterKind } from "../kind";

/*
 * An `mcp` declaration's schema apart from the client (./index.ts), so what checks a configuration
 * does not pull the client in: the Worker loads the client only for tenants with MCP servers.
 */

export const McpServerSchema = v.strictObject({
  /** Label used in errors, records ("mcp:<url>") and admin routes. */
  name: v.pipe(v.string(), v.regex(/^[a-zA-Z0-9_-]{1,64}$/, "must match ^[a-zA-Z0-9_-]{1,64}$")),
  /** The server's Streamable HTTP endpoint. */
  url: httpUrl,
  auth: v.optional(AuthSchema),
  /** Prepended to remote tool names (e.g. "gh_"). */
  prefix: v.optional(v.string(), ""),
  /** Remote tool names to expose; default: all. */
  tools: v.optional(v.array(v.string())),
  /** How long a fetched tool list is trusted. Default 5 minutes. */
  cacheTtlMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 300_000),
  /**
   * Definition pinning: "changes" (default) refuses a tool whose definition differs from the hash
   * an admin approved; "required" also refuses tools not approved yet; "off" never refuses.
   */
  pinning: v.optional(v.picklist(["off", "changes", "required"]), "changes"),
  rateLimit: v.optional(RateLimitSchema),
  ...policyEntries,
});
export type McpServerDeclaration = v.InferInput<typeof McpServerSchema>;
export type McpServer = v.InferOutput<typeof McpServerSchema>;

/**
 * The `mcp` section of a tenant's configuration. Its tools are listed from the server at run time
 * (mcpServer below; the Worker keeps them per isolate), so the kind has no static tools.
 */
export const mcpKind: AdapterKind<McpServer> = {
  label: "MCP server",
  schema: McpServerSchema,
  upstreamUrl: (decl) => decl.url,
};
