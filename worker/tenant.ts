import type { Registry } from "../src/registry";
import type { Hooks } from "../src/hooks";
import { buildAdapters } from "./adapters/build";
import type { UpstreamNamespace } from "./adapters/upstream-gate";
import type { TenantAdapters } from "./adapters/live";
import { ConfigError, parseTenantConfig, type Scope, type TenantConfig } from "./config";
import { CATALOG } from "./catalog";
import { DEMO_CONFIG } from "./demo/tenant";
import { approvalHooks, buildRegistry } from "./registry";

export interface TenantKey {
  name: string;
  /** SHA-256 of the key, as bytes for the constant-time comparison. */
  hash: Uint8Array;
  scopes: ReadonlySet<Scope>;
}

/** A parsed, checked tenant: built once per isolate per configuration text. */
export interface Tenant {
  name: string;
  config: TenantConfig;
  registry: Registry;
  keys: readonly TenantKey[];
  hooks: Hooks;
  /** Per-format tool listings, filled on first request (a registry never changes; a new view gets a new map). */
  listings: Map<string, unknown>;
  /** Fetch adapters: egress-checked fetch, MCP servers, shared rate limits. */
  adapters: TenantAdapters;
}

type EnvVars = Record<string, unknown> & { TOOLGATE_CONFIG?: string; TOOLGATE_DEMO?: string };

function hexToBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** A tenant from its configuration; `env` gives the Durable Objects that enforce shared upstream rate limits. */
export function createTenant(configInput: string | unknown, env?: { UPSTREAMS?: UpstreamNamespace }): Tenant {
  const config = parseTenantConfig(configInput);
  const adapters = buildAdapters(config, { tenant: config.name, ...(env?.UPSTREAMS ? { upstreams: env.UPSTREAMS } : {}) });
  const prefixes = adapters.servers.map((server) => server.declaration.prefix);
  return {
    name: config.name,
    config,
    registry: buildRegistry(config, CATALOG, adapters.tools, prefixes),
    adapters,
    keys: config.keys.map((key) => ({ name: key.name, hash: hexToBytes(key.hash), scopes: new Set(key.scopes) })),
    hooks: approvalHooks(config),
    listings: new Map(),
  };
}

// Configurations are fixed per deployment; tests and `--var` may switch between a few.
const cache = new Map<string, Tenant | ConfigError>();
const CACHE_LIMIT = 16;

/** The tenant for this environment, parsed once per configuration text. Throws ConfigError. */
export function loadTenant(env: EnvVars): Tenant {
  const text = env.TOOLGATE_CONFIG;
  if (text === undefined || text === "") {
    if (env.TOOLGATE_DEMO !== "true") {
      throw new ConfigError("TOOLGATE_CONFIG is not set: give the tenant's configuration in its wrangler environment");
    }
  }
  const cacheKey = text || "(demo)";
  let entry = cache.get(cacheKey);
  if (entry === undefined) {
    try {
      entry = createTenant(text || DEMO_CONFIG, env as { UPSTREAMS?: UpstreamNamespace });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      entry = error;
    }
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
    cache.set(cacheKey, entry);
  }
  if (entry instanceof ConfigError) throw entry;
  return entry;
}

/** Secret values by the names tools use, read from the Worker's secrets. Throws ConfigError when one is missing. */
export function resolveSecrets(config: TenantConfig, env: Record<string, unknown>): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const [name, envName] of Object.entries(config.secrets)) {
    const value = env[envName];
    if (typeof value !== "string" || value === "") {
      throw new ConfigError(`TOOLGATE_CONFIG: secrets.${name}: the Worker secret ${envName} is not set (wrangler secret put ${envName})`);
    }
    secrets[name] = value;
  }
  return secrets;
}
