import type { Registry } from "../../src/registry";
import type { Hooks } from "../../src/hooks";
import { buildAdapters, type StaticAdapters } from "../adapters/build";
import { bundledConfig, type BundledConfig, type ListingsLoader } from "./bundled-config";
import { ConfigError } from "../errors";
import type { ActAs } from "../identity/settings";
import { parseTenantConfig, type Scope, type TenantConfig } from "./config";
import { CATALOG, type Catalog } from "./catalog";
import { demoConfig } from "../demo/identity";
import { DEMO_CONFIG } from "../demo/tenant";
import { approvalHooks, buildRegistry } from "./registry";
import { selectTools } from "./tool-selection";
import { searchToolOf } from "../search/setup";
import { codeToolEntryOf } from "../code-mode/tool";
import type { CodeMode } from "../code-mode/modes";
import { tenantUpstreams, type UpstreamNamespace } from "../upstreams/address";

export interface TenantKey {
  name: string;
  /** SHA-256 of the key, as bytes for the constant-time comparison. */
  hash: Uint8Array;
  scopes: ReadonlySet<Scope>;
  /** May act for its app's users (worker/identity/act-as.ts). */
  actAs?: ActAs;
  /** Its callers' code mode; absent: the tenant's default. */
  codeMode?: CodeMode;
}

/** A parsed, checked tenant: built once per isolate per configuration text. */
export interface Tenant {
  name: string;
  config: TenantConfig;
  registry: Registry;
  keys: readonly TenantKey[];
  hooks: Hooks;
  /**
   * Per-format tool listings and their JSON text, filled on first request (a registry never
   * changes; a new view gets a new map).
   */
  listings: Map<string, unknown>;
  /** Fetch adapters: egress-checked fetch, MCP servers, shared rate limits (their live tools: live-adapters.ts). */
  adapters: StaticAdapters;
  /**
   * A bundled configuration's precomputed listings, to be checked on the first listing
   * (listings/precomputed.ts); absent for other configurations and in views with remote tools.
   */
  precomputed?: PrecomputedSource;
}

/** Where a tenant's precomputed listings come from, and what their key is checked against. */
export interface PrecomputedSource {
  load: ListingsLoader;
  /** The configuration as bundled (parsed JSON), hashed into the key. */
  config: unknown;
  catalog: Catalog;
  source: string;
}

type EnvVars = Record<string, unknown> & { TOOLGATE_CONFIG?: string; TOOLGATE_DEMO?: string };

function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

const VAR = "TOOLGATE_CONFIG";

/**
 * A tenant from its configuration; `env` gives the Durable Objects that enforce shared upstream rate
 * limits; `source` names the configuration in error messages ("tenants/acme.json is invalid: …");
 * `catalog` holds the code tools its "tools" may name.
 */
export function createTenant(
  configInput: string | unknown,
  env?: { UPSTREAMS?: UpstreamNamespace },
  source = VAR,
  catalog: Catalog = CATALOG,
): Tenant {
  const config = parseTenantConfig(configInput, source);
  try {
    const upstreams = env?.UPSTREAMS ? tenantUpstreams({ UPSTREAMS: env.UPSTREAMS }, config.name) : undefined;
    const code = selectTools(config, catalog);
    const adapters = buildAdapters(config, upstreams ? { upstreams } : {}, code.egress);
    const prefixes = adapters.servers.map((server) => server.declaration.prefix);
    // Entries are built on first use, after this function returned: their errors get the source there.
    const adapterTools = adapters.tools.map((tool) =>
      "build" in tool ? { name: tool.name, build: () => withSource(source, tool.build) } : tool,
    );
    const search = searchToolOf(config, () => tenant);
    const codeTool = codeToolEntryOf(config.codeMode, () => tenant);
    const modeTools = [...(search ? [search] : []), ...(codeTool ? [codeTool] : [])];
    const registry = buildRegistry(config, [...code.tools, ...modeTools], adapterTools, prefixes);
    const tenant: Tenant = {
      name: config.name,
      config,
      registry,
      adapters,
      keys: config.keys.map((key) => ({
        name: key.name,
        hash: hexToBytes(key.hash),
        scopes: new Set(key.scopes),
        ...(key.actAs ? { actAs: key.actAs } : {}),
        ...(key.codeMode ? { codeMode: key.codeMode } : {}),
      })),
      hooks: approvalHooks(config),
      listings: new Map(),
    };
    return tenant;
  } catch (error) {
    throw inSource(source, error);
  }
}

/** The registry and adapter builders name the field; the configuration's source goes in front. */
function inSource(source: string, error: unknown): unknown {
  return error instanceof ConfigError ? new ConfigError(`${source} is invalid: ${error.message}`) : error;
}

function withSource<T>(source: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    throw inSource(source, error);
  }
}

/**
 * A tenant with every tool built, so every check has run (declared tools are otherwise built on first
 * use): what a deploy (scripts/tools-check.ts) and `tenant:add` run. Throws ConfigError.
 */
export function checkTenant(configInput: string | unknown, source = VAR, catalog: Catalog = CATALOG): Tenant {
  const tenant = createTenant(configInput, undefined, source, catalog);
  tenant.registry.list();
  return tenant;
}

function build(input: unknown, env: EnvVars, source: string, catalog: Catalog): Tenant | ConfigError {
  try {
    return createTenant(input, env as { UPSTREAMS?: UpstreamNamespace }, source, catalog);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error;
  }
}

// Configurations are fixed per deployment; tests and `--var` may switch between a few. One cache per
// catalogue: the same text makes another tenant with other tools.
const caches = new WeakMap<Catalog, Map<string, Tenant | ConfigError>>();
const CACHE_LIMIT = 16;
// The bundled configuration is one object per isolate: its tenant is kept beside it.
let fromBundle: { bundled: BundledConfig; catalog: Catalog; entry: Tenant | ConfigError } | undefined;

/**
 * The tenant for this environment, parsed once per configuration. Throws ConfigError. Precedence:
 * the TOOLGATE_CONFIG var (a local override: --var, .dev.vars, tests), else the configuration bundled
 * into the tenant's Worker (tenants/<name>.json), else the embedded demo where TOOLGATE_DEMO is "true".
 * Its code tools come from `catalog` (the app's: production passes worker/tenant/catalog.ts).
 */
export function loadTenant(
  env: EnvVars,
  bundled: BundledConfig | undefined = bundledConfig(),
  catalog: Catalog = CATALOG,
): Tenant {
  const text = env.TOOLGATE_CONFIG;
  let entry: Tenant | ConfigError;
  if (text === undefined || text === "") {
    if (bundled) {
      if (fromBundle?.bundled !== bundled || fromBundle.catalog !== catalog) {
        fromBundle = { bundled, catalog, entry: build(bundled.config, env, bundled.source, catalog) };
        const { listings: load, config, source } = bundled;
        if (load && !(fromBundle.entry instanceof ConfigError))
          fromBundle.entry.precomputed = { load, config, catalog, source };
      }
      entry = fromBundle.entry;
    } else if (env.TOOLGATE_DEMO === "true") {
      // With the demo identity provider when TOOLGATE_DEV_IDP names one (npm run dev:idp).
      const demo = demoConfig(env);
      const key = demo === DEMO_CONFIG ? "(demo)" : `(demo)\n${env.TOOLGATE_DEV_IDP}`;
      entry = cached(catalog, key, () => build(demo, env, VAR, catalog));
    } else {
      throw new ConfigError(
        "TOOLGATE_CONFIG is not set and no configuration is bundled: deploy the tenant's environment " +
          "(its main is tenants/<name>.ts, see npm run tenant:add) or set TOOLGATE_CONFIG",
      );
    }
  } else {
    entry = cached(catalog, text, () => build(text, env, VAR, catalog));
  }
  if (entry instanceof ConfigError) throw entry;
  return entry;
}

function cached(catalog: Catalog, key: string, make: () => Tenant | ConfigError): Tenant | ConfigError {
  let cache = caches.get(catalog);
  if (!cache) caches.set(catalog, (cache = new Map()));
  let entry = cache.get(key);
  if (entry === undefined) {
    entry = make();
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(key, entry);
  }
  return entry;
}

/** Secret values by the names tools use, read from the Worker's secrets. Throws ConfigError when one is missing. */
export function resolveSecrets(config: TenantConfig, env: Record<string, unknown>): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const [name, envName] of Object.entries(config.secrets)) {
    const value = env[envName];
    if (typeof value !== "string" || value === "") {
      throw new ConfigError(
        `secrets.${name}: the Worker secret ${envName} is not set (wrangler secret put ${envName})`,
      );
    }
    secrets[name] = value;
  }
  return secrets;
}
