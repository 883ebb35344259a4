import { canonicalJson } from "../../src/hash";
import { checkEgress, createEgressFetch, type EgressPolicy } from "../../src/egress";
import {
  parseDeclaration,
  type AuthDeclaration,
  type ConnectionUse,
  type RateLimit,
} from "../../src/adapters/declarations";
import { labelOf, type AdapterDeclaration, type AdapterKind } from "../../src/adapters/kind";
import { ADAPTER_KINDS, ADAPTER_SECTIONS, type AdapterSection } from "../../src/adapters/kinds";
import type { McpServer } from "../../src/adapters/mcp";
import { checkKeyPointer } from "../../src/gates/key";
import type { UpstreamGate } from "../../src/adapters/upstream";
import type { ToolEntry } from "../../src/registry";
import type { Tool } from "../../src/tool";
import type { AdapterConfig } from "./config";
import { ConfigError } from "../errors";
import { checkNamespaces } from "./namespaces";
import type { UpstreamsAddress } from "../upstreams/address";
import { createUpstreamGate } from "../upstreams/upstream-gate";

/** Added to an egress refusal of a plain http URL. */
const PLAIN_HTTP_HINT = "; plain http needs the host in egress.allowHttpHosts (loopback only)";

/** What GET /v1/adapters shows of one declaration (never its credentials): its kind's summary fields besides these. */
export interface AdapterSummary {
  name: string;
  upstream: string;
  rateLimit?: RateLimit;
  [field: string]: unknown;
}

export interface StaticAdapters {
  /** The tools of every kind known from the configuration alone (HTTP, OpenAPI …); entries are built on first use. */
  tools: (Tool | ToolEntry)[];
  /** Remote MCP servers, parsed; their tools are listed at run time. */
  servers: { declaration: McpServer; upstream: string; gate?: UpstreamGate }[];
  egress: EgressPolicy;
  /** fetch for every tool of the tenant: only to the adapters' origins and egress.allowHosts. */
  fetch: typeof fetch;
  /** By section, for every kind with static tools (an empty list when the tenant declares none). */
  summary: Partial<Record<AdapterSection, AdapterSummary[]>>;
}

export interface AdapterDeps {
  /**
   * The tenant's Upstream objects (tenantUpstreams). Without them (scripts, config checks)
   * rate limits are parsed but not enforced.
   */
  upstreams?: UpstreamsAddress;
}

/** One parsed declaration with where it sits in the configuration and the URL its requests go to. */
interface Declared<D extends AdapterDeclaration = AdapterDeclaration> {
  section: AdapterSection;
  kind: AdapterKind;
  where: string;
  /** As the configuration holds it, and how errors name it. */
  raw: unknown;
  label: string;
  /** Parsed: whole, or only the kind's `head` for a kind built on first use. */
  declaration: D;
  url: URL;
  /** url.origin, read once: URL's origin getter builds a new string on every read. */
  origin: string;
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

// The MCP kind parsed these with its own schema: the declaration is an McpServer.
const isServer = (entry: Declared): entry is Declared<McpServer> => entry.kind === ADAPTER_KINDS.mcp;

// Workers throw "Illegal invocation" when fetch is called detached from globalThis.
const globalFetch: typeof fetch = (input, init) => fetch(input, init);

/**
 * The tenant's adapters from its configuration, one section per kind of ADAPTER_KINDS: the tools of
 * static kinds, MCP server declarations, the egress allow-list (every adapter's origin, plus
 * egress.allowHosts and `toolEgress`, what the tenant's code tools need) and one shared rate-limit
 * gate per upstream origin. Throws ConfigError naming the section, index, adapter and field
 * (createTenant adds the source).
 */
export function buildAdapters(
  config: AdapterConfig,
  deps: AdapterDeps,
  toolEgress: readonly string[] = [],
): StaticAdapters {
  const allowHosts = [
    ...config.egress.allowHosts,
    ...toolEgress.filter((entry) => !config.egress.allowHosts.includes(entry)),
  ];
  const egress: EgressPolicy = { allowHosts, allowHttpHosts: [...config.egress.allowHttpHosts] };
  const gates = new Map<string, { limit: RateLimit; where: string; gate: UpstreamGate | undefined }>();

  /** One gate per origin: every tool of an upstream shares its budget, so its declarations must agree on it. */
  function declareLimit(origin: string, limit: RateLimit | undefined, where: string): void {
    if (!limit) return;
    const known = gates.get(origin);
    if (!known) {
      gates.set(origin, {
        limit,
        where,
        gate: deps.upstreams ? createUpstreamGate(deps.upstreams, origin, limit) : undefined,
      });
    } else if (canonicalJson(known.limit) !== canonicalJson(limit)) {
      throw invalid(
        `${where}.rateLimit`,
        `differs from ${known.where}.rateLimit for the same upstream ${origin}; declare one limit per upstream`,
      );
    }
  }
  const gateOf = (origin: string) => gates.get(origin)?.gate;

  function upstream(where: string, url: string): { url: URL; origin: string } {
    const parsed = at(`${where}.url`, () => new URL(url.replace(/\{[^}]*\}/g, "x")));
    const origin = parsed.origin;
    // The adapter's exact origin (scheme, host, port), not its host: other ports of that host stay closed.
    if (!egress.allowHosts.includes(origin)) (egress.allowHosts as string[]).push(origin);
    return { url: parsed, origin };
  }

  function checkSecret(where: string, auth: AuthDeclaration | undefined): void {
    if (!auth) return;
    const names = auth.type === "basic" ? [auth.passwordSecret, auth.usernameSecret] : [auth.secret];
    for (const name of names) {
      if (name !== undefined && !(name in config.secrets)) {
        throw invalid(
          `${where}.auth`,
          `the secret "${name}" is not declared in "secrets" (add "${name}": "<Worker secret name>")`,
        );
      }
    }
  }

  /** A tool acting as the user names a declared connection, and sends no other Authorization. */
  function checkConnection(where: string, use: ConnectionUse | undefined, auth: AuthDeclaration | undefined): void {
    if (!use) return;
    const declared = Object.keys(config.connections ?? {});
    if (!declared.includes(use.name))
      throw invalid(
        `${where}.connection.name`,
        `no connection "${use.name}" in "connections"` +
          (declared.length ? ` (declared: ${declared.join(", ")})` : " (declare it there)"),
      );
    if (auth?.type === "bearer" || auth?.type === "basic")
      throw invalid(
        `${where}.auth`,
        `a "${auth.type}" credential would replace the user's token of connection "${use.name}" in ` +
          'Authorization; send a key beside it with auth "header" or "query"',
      );
  }

  // Pass 1: parse every declaration of every kind; collect origins and limits, so egress and
  // gates are complete before any tool exists.
  const declared: Declared[] = [];
  for (const section of ADAPTER_SECTIONS) {
    const kind: AdapterKind = ADAPTER_KINDS[section];
    config[section].forEach((raw, i) => {
      const where = `${section}[${i}]`;
      const label = labelOf(kind, raw);
      // A kind built on first use: only the fields read here now, the whole declaration with its tool.
      const declaration = at(where, () =>
        parseDeclaration(kind.toolName && kind.head ? kind.head : kind.schema, raw, label),
      );
      checkSecret(where, declaration.auth);
      checkConnection(where, declaration.connection, declaration.auth);
      const { url, origin } = upstream(
        where,
        at(where, () => kind.upstreamUrl(declaration, label)),
      );
      declareLimit(origin, declaration.rateLimit, where);
      declared.push({ section, kind, where, raw, label, declaration, url, origin });
    });
  }
  const servers = declared.filter(isServer);
  const seen = new Map<string, string>();
  for (const { where, declaration } of servers) {
    if (seen.has(declaration.name))
      throw invalid(`${where}.name`, `"${declaration.name}" is also the name of ${seen.get(declaration.name)}`);
    seen.set(declaration.name, where);
  }
  checkNamespaces(servers);
  // Once per origin (credentials in a URL are refused apart): many declarations share a few upstreams.
  const checked = new Set<string>();
  for (const { where, url, origin } of declared) {
    const key = url.username || url.password ? url.href : origin;
    if (checked.has(key)) continue;
    const check = checkEgress(url, egress);
    if (!check.ok) throw invalid(`${where}.url`, `${check.reason}${url.protocol === "http:" ? PLAIN_HTTP_HINT : ""}`);
    checked.add(key);
  }

  // Pass 2: the static kinds' tools, each with its upstream's gate. A kind with one tool per
  // declaration gives an entry, built on first use (registry.ts): the checks of its tool run then.
  const tools: (Tool | ToolEntry)[] = [];
  const summary: StaticAdapters["summary"] = {};
  for (const section of ADAPTER_SECTIONS) if (ADAPTER_KINDS[section].tools) summary[section] = [];
  for (const { section, kind, where, raw, label, declaration, origin } of declared) {
    const toolsOf = kind.tools;
    if (!toolsOf) continue; // listed at run time (tenant/live-adapters.ts)
    const gate = gateOf(origin);
    const make = () =>
      at(where, () => {
        const whole = kind.toolName && kind.head ? parseDeclaration(kind.schema, raw, label) : declaration;
        const built = toolsOf(whole, gate ? { gate } : {});
        for (const tool of built) checkKeyPointer(tool);
        return built;
      });
    let made: Tool[] = [];
    if (kind.toolName) tools.push({ name: kind.toolName(declaration), build: () => make()[0]! });
    else tools.push(...(made = make()));
    const { name, rateLimit } = declaration;
    (summary[section] ??= []).push({
      name,
      ...kind.summary?.(declaration, made),
      upstream: origin,
      ...(rateLimit ? { rateLimit } : {}),
    });
  }
  const remote = servers.map(({ declaration, origin }) => {
    const gate = gateOf(origin);
    return { declaration, upstream: origin, ...(gate ? { gate } : {}) };
  });
  return { tools, servers: remote, egress, fetch: createEgressFetch(egress, globalFetch), summary };
}
