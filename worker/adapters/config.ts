import * as v from "valibot";
import { classifyIpLiteral } from "../../src/ip";

/**
 * The adapter sections of a tenant's configuration. The tenant schema only checks their outline;
 * each declaration is parsed by the core's own schema (src/adapters/declarations.ts) when the
 * tenant is built, so its error names the section, the index, the adapter and the field.
 */

const hostPattern = v.pipe(
  v.string(),
  v.regex(/^(\*|(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*)$/, 'must be a lowercase host name, "*.example.com" or "*"'),
);

/** Plain http and internal addresses are for local development against servers on this machine only. */
const loopbackHost = v.pipe(
  v.string(),
  v.check((host) => host === "localhost" || classifyIpLiteral(host) === "loopback", "must be a loopback host (127.0.0.1, ::1 or localhost): plain http is for local development only"),
);

export const ADAPTER_FIELDS = {
  /** HTTP API endpoints, one tool each (HttpToolSchema). */
  http: v.optional(v.array(v.unknown()), []),
  /** OpenAPI 3.x documents, one tool per operation (OpenApiSchema). */
  openapi: v.optional(v.array(v.unknown()), []),
  /** Remote MCP servers over Streamable HTTP (McpServerSchema). */
  mcp: v.optional(v.array(v.unknown()), []),
  /** Where tools may send requests besides the adapters' own hosts (which are always allowed). */
  egress: v.optional(
    v.strictObject({
      /** More https hosts (for code tools, or redirect targets of an adapter). */
      allowHosts: v.optional(v.array(hostPattern), []),
      /** Hosts reachable over plain http, for local development only (loopback). */
      allowHttpHosts: v.optional(v.array(loopbackHost), []),
    }),
    {},
  ),
};
