import * as v from "valibot";
import { ADAPTER_SECTIONS, type AdapterSection } from "../../src/adapters/kinds";
import { parseEgressEntry } from "../../src/egress";
import { classifyIpLiteral } from "../../src/ip";

/**
 * The adapter sections of a tenant's configuration, one list per kind of ADAPTER_KINDS. The tenant
 * schema only checks their outline; each declaration is parsed by its kind's own schema when the
 * tenant is built (adapters/build.ts), so its error names the section, the index, the adapter and the field.
 */

const HOST_PATTERN = /^(\*|(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*)$/;

/** Why an egress.allowHosts entry is refused, or undefined. */
function allowHostsProblem(entry: string): string | undefined {
  const parsed = parseEgressEntry(entry);
  if (typeof parsed === "string") return parsed;
  if (parsed.scheme === undefined && !HOST_PATTERN.test(entry)) {
    return (
      'must be a lowercase host name ("api.example.com", "*.example.com", "*") ' +
      'or an origin ("https://api.example.com:8443")'
    );
  }
  if (parsed.scheme === "http:")
    return `plain http is for local development: list "${entry}" in egress.allowHttpHosts (loopback only)`;
  return undefined;
}

/** Plain http and internal addresses are for local development against servers on this machine only. */
function allowHttpHostsProblem(entry: string): string | undefined {
  const parsed = parseEgressEntry(entry);
  if (typeof parsed === "string") return parsed;
  if (parsed.host === "localhost" || classifyIpLiteral(parsed.host) === "loopback") return undefined;
  return (
    'must be a loopback host or origin (127.0.0.1, ::1, localhost, "http://127.0.0.1:9001"): ' +
    "plain http is for local development only"
  );
}

/** A string entry checked by `problem`, whose message is the config error. */
const entry = (problem: (entry: string) => string | undefined) =>
  v.pipe(
    v.string(),
    v.check(
      (text) => problem(text) === undefined,
      (issue) => problem(issue.input as string) ?? "is invalid",
    ),
  );

const section = () => v.optional(v.array(v.unknown()), []);
const sections = Object.fromEntries(ADAPTER_SECTIONS.map((name) => [name, section()])) as Record<
  AdapterSection,
  ReturnType<typeof section>
>;

export const ADAPTER_FIELDS = {
  /**
   * "http": HTTP API endpoints, "openapi": OpenAPI 3.x documents, "mcp": remote MCP servers … (src/adapters/kinds.ts).
   */
  ...sections,
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

/**
 * What the adapters' builder reads of a tenant's configuration (a TenantConfig is one): its adapter
 * sections, egress and the names of its secrets and connections. Its own type, so adapters/ never imports tenant/.
 */
export type AdapterConfig = v.InferOutput<v.ObjectSchema<typeof ADAPTER_FIELDS, undefined>> & {
  secrets: Readonly<Record<string, string>>;
  /** The connections tools may act as the user through (only their names are read here). */
  connections?: Readonly<Record<string, unknown>> | undefined;
};
