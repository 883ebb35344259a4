import { canonicalJson } from "../../src/hash";
import { checkEgress, createEgressFetch, type EgressPolicy } from "../../src/egress";
import {
  HttpToolSchema,
  McpServerSchema,
  OpenApiSchema,
  parseDeclaration,
  type AuthDeclaration,
  type McpServer,
  type RateLimit,
} from "../../src/adapters/declarations";
import { httpTool } from "../../src/adapters/http";
import { checkKeyPointer } from "../../src/gates/key";
import { openApiTools, serverUrl } from "../../src/adapters/openapi";
import type { UpstreamGate } from "../../src/adapters/upstream";
import type { Tool } from "../../src/tool";
import { ConfigError, type TenantConfig } from "../config";
import type { UpstreamsAddress } from "../upstreams/address";
import { createUpstreamGate } from "../upstreams/upstream-gate";

/** What GET /v1/adapters shows of the declarations (never their credentials). */
export interface AdapterSummary {
  http: { name: string; method: string; upstream: string; rateLimit?: RateLimit }[];
  openapi: { name: string; upstream: string; tools: string[]; rateLimit?: RateLimit }[];
}

export interface StaticAdapters {
  /** HTTP and OpenAPI tools (known from the configuration alone). */
  tools: Tool[];
  /** Remote MCP servers, parsed; their tools are listed at run time. */
  servers: { declaration: McpServer; upstream: string; gate?: UpstreamGate }[];
  egress: EgressPolicy;
  /** fetch for every tool of the tenant: only to the adapters' origins and egress.allowHosts. */
  fetch: typeof fetch;
  summary: AdapterSummary;
}

export interface AdapterDeps {
  /** The tenant's Upstream objects (tenantUpstreams). Without them (scripts, config checks) rate limits are parsed but not enforced. */
  upstreams?: UpstreamsAddress;
}

const invalid = (where: string, message: string) => new ConfigError(`${where}: ${message}`);
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Run a core parser/factory; its TypeError becomes a ConfigError prefixed with where it sits in the config. */
function at<T>(where: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw invalid(where, messageOf(error));
  }
}

const nameOf = (raw: unknown) => String((raw as { name?: unknown } | null)?.name ?? "?");
// Workers throw "Illegal invocation" when fetch is called detached from globalThis.
const globalFetch: typeof fetch = (input, init) => fetch(input, init);

/**
 * The tenant's adapters from its configuration: HTTP and OpenAPI tools, MCP server declarations,
 * the egress allow-list (every adapter's origin, plus egress.allowHosts) and one shared rate-limit
 * gate per upstream origin. Throws ConfigError naming the section, index, adapter and field
 * (createTenant adds the source).
 */
export function buildAdapters(config: TenantConfig, deps: AdapterDeps): StaticAdapters {
  const egress: EgressPolicy = { allowHosts: [...config.egress.allowHosts], allowHttpHosts: [...config.egress.allowHttpHosts] };
  const urls: { where: string; url: URL }[] = [];
  const gates = new Map<string, { limit: RateLimit; where: string; gate: UpstreamGate | undefined }>();

  /** One gate per origin: every tool of an upstream shares its budget, so its declarations must agree on it. */
  function declareLimit(origin: string, limit: RateLimit | undefined, where: string): void {
    if (!limit) return;
    const known = gates.get(origin);
    if (!known) {
      gates.set(origin, { limit, where, gate: deps.upstreams ? createUpstreamGate(deps.upstreams, origin, limit) : undefined });
    } else if (canonicalJson(known.limit) !== canonicalJson(limit)) {
      throw invalid(`${where}.rateLimit`, `differs from ${known.where}.rateLimit for the same upstream ${origin}; declare one limit per upstream`);
    }
  }
  const gateOf = (url: URL) => gates.get(url.origin)?.gate;

  function upstream(where: string, url: string): URL {
    const parsed = at(`${where}.url`, () => new URL(url.replace(/\{[^}]*\}/g, "x")));
    urls.push({ where, url: parsed });
    // The adapter's exact origin (scheme, host, port), not its host: other ports of that host stay closed.
    if (!egress.allowHosts.includes(parsed.origin)) (egress.allowHosts as string[]).push(parsed.origin);
    return parsed;
  }

  function checkSecret(where: string, auth: AuthDeclaration | undefined): void {
    if (!auth) return;
    const names = auth.type === "basic" ? [auth.passwordSecret, auth.usernameSecret] : [auth.secret];
    for (const name of names) {
      if (name !== undefined && !(name in config.secrets)) {
        throw invalid(`${where}.auth`, `the secret "${name}" is not declared in "secrets" (add "${name}": "<Worker secret name>")`);
      }
    }
  }

  // Pass 1: parse every declaration; collect hosts and limits, so egress and gates are complete before any tool exists.
  const http = config.http.map((raw, i) => {
    const where = `http[${i}]`;
    const decl = at(where, () => parseDeclaration(HttpToolSchema, raw, `HTTP tool "${nameOf(raw)}"`));
    checkSecret(where, decl.auth);
    const url = upstream(where, decl.url);
    declareLimit(url.origin, decl.rateLimit, where);
    return { raw, where, decl, url };
  });
  const openapi = config.openapi.map((raw, i) => {
    const where = `openapi[${i}]`;
    const label = `OpenAPI "${nameOf(raw)}"`;
    const decl = at(where, () => parseDeclaration(OpenApiSchema, raw, label));
    checkSecret(where, decl.auth);
    const url = upstream(where, at(where, () => decl.baseUrl ?? serverUrl(decl.document, label)));
    declareLimit(url.origin, decl.rateLimit, where);
    return { raw, where, decl, url };
  });
  const servers = config.mcp.map((raw, i) => {
    const where = `mcp[${i}]`;
    const decl = at(where, () => parseDeclaration(McpServerSchema, raw, `MCP server "${nameOf(raw)}"`));
    checkSecret(where, decl.auth);
    const url = upstream(where, decl.url);
    declareLimit(url.origin, decl.rateLimit, where);
    return { decl, where, url };
  });
  const seen = new Map<string, string>();
  for (const { where, decl } of servers) {
    if (seen.has(decl.name)) throw invalid(`${where}.name`, `"${decl.name}" is also the name of ${seen.get(decl.name)}`);
    seen.set(decl.name, where);
  }
  for (const { where, url } of urls) {
    const check = checkEgress(url, egress);
    if (!check.ok) throw invalid(`${where}.url`, `${check.reason}${url.protocol === "http:" ? "; plain http needs the host in egress.allowHttpHosts (loopback only)" : ""}`);
  }

  // Pass 2: the tools, each with its upstream's gate.
  const tools: Tool[] = [];
  const summary: AdapterSummary = { http: [], openapi: [] };
  for (const { raw, where, decl, url } of http) {
    const gate = gateOf(url);
    const tool = at(where, () => httpTool(raw as Parameters<typeof httpTool>[0], gate ? { gate } : {}));
    at(where, () => checkKeyPointer(tool));
    tools.push(tool);
    summary.http.push({ name: decl.name, method: decl.method, upstream: url.origin, ...(decl.rateLimit ? { rateLimit: decl.rateLimit } : {}) });
  }
  for (const { raw, where, decl, url } of openapi) {
    const gate = gateOf(url);
    const made = at(where, () => openApiTools(raw as Parameters<typeof openApiTools>[0], gate ? { gate } : {}));
    for (const tool of made) at(where, () => checkKeyPointer(tool));
    tools.push(...made);
    summary.openapi.push({ name: decl.name, upstream: url.origin, tools: made.map((tool) => tool.name), ...(decl.rateLimit ? { rateLimit: decl.rateLimit } : {}) });
  }
  const remote = servers.map(({ decl, url }) => {
    const gate = gateOf(url);
    return { declaration: decl, upstream: url.origin, ...(gate ? { gate } : {}) };
  });
  return { tools, servers: remote, egress, fetch: createEgressFetch(egress, globalFetch), summary };
}
