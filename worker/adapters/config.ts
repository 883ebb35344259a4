import * as v from "valibot";
import { parseEgressEntry } from "../../src/egress";
import { classifyIpLiteral } from "../../src/ip";

/**
 * The adapter sections of a tenant's configuration. The tenant schema only checks their outline;
 * each declaration is parsed by the core's own schema (src/adapters/declarations.ts) when the
 * tenant is built, so its error names the section, the index, the adapter and the field.
 */

const HOST_PATTERN = /^(\*|(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*)$/;

/** Why an egress.allowHosts entry is refused, or undefined. */
function allowHostsProblem(entry: string): string | undefined {
  const parsed = parseEgressEntry(entry);
  if (typeof parsed === "string") return parsed;
  if (parsed.scheme === undefined && !HOST_PATTERN.test(entry)) {
    return 'must be a lowercase host name ("api.example.com", "*.example.com", "*") or an origin ("https://api.example.com:8443")';
  }
  if (parsed.scheme === "http:") return `plain http is for local development: list "${entry}" in egress.allowHttpHosts (loopback only)`;
  return undefined;
}

/** Plain http and internal addresses are for local development against servers on this machine only. */
function allowHttpHostsProblem(entry: string): string | undefined {
  const parsed = parseEgressEntry(entry);
  if (typeof parsed === "string") return parsed;
  if (parsed.host === "localhost" || classifyIpLiteral(parsed.host) === "loopback") return undefined;
  return 'must be a loopback host or origin (127.0.0.1, ::1, localhost, "http://127.0.0.1:9001"): plain http is for local development only';
}

/** A string entry checked by `problem`, whose message is the config error. */
const entry = (problem: (entry: string) => string | undefined) =>
  v.pipe(
    v.string(),
    v.check((text) => problem(text) === undefined, (issue) => problem(issue.input as string) ?? "is invalid"),
  );

export const ADAPTER_FIELDS = {
  /** HTTP API endpoints, one tool each (HttpToolSchema). */
  http: v.optional(v.array(v.unknown()), []),
  /** OpenAPI 3.x documents, one tool per operation (OpenApiSchema). */
  openapi: v.optional(v.array(v.unknown()), []),
  /** Remote MCP servers over Streamable HTTP (McpServerSchema). */
  mcp: v.optional(v.array(v.unknown()), []),
  /** Where tools may send requests besides the adapters' own origins (which are always allowed). */
  egress: v.optional(
    v.strictObject({
      /** More https origins or hosts (port 443), for code tools or redirect targets of an adapter. */
      allowHosts: v.optional(v.array(entry(allowHostsProblem)), []),
      /** Loopback hosts (default ports) or origins reachable over plain http, for local development only. */
      allowHttpHosts: v.optional(v.array(entry(allowHttpHostsProblem)), []),
    }),
    {},
  ),
};
