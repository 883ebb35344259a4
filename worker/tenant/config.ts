import * as v from "valibot";
import { isPlainObject } from "../../src/json";
import { PolicyDataSchema } from "../../src/policy";
import { ADAPTER_FIELDS } from "../adapters/config";
import { CONFIG_BLOCKS, configBlocks, type ConfigBlock, type ConfigBlocksLibrary } from "../config-blocks-library";
import { ConfigError } from "../errors";
import { ACT_AS } from "../identity/settings";
import { codeModeField, codeModeWithoutBlock } from "../code-mode/modes";
import { intIn } from "./int-in";
import { SCOPES } from "./scopes";
import { toolName } from "./tool-name";

/**
 * A tenant's configuration: which tools it offers and how, who may call them, and its limits.
 * A deployed tenant's is tenants/<name>.json, bundled into its Worker; the JSON var TOOLGATE_CONFIG
 * overrides it (locally, in tests).
 */

const MiB = 1024 * 1024;
/** bodyTimeoutMs: how long a request body may take to arrive in full (a trickling or stalled upload gets 408). */
export const DEFAULT_LIMITS = { maxBodyBytes: MiB, maxCallsPerBatch: 128, bodyTimeoutMs: 10_000 } as const;

/** A tenant's "tools" entry: a tool's name, "tag:<tag>" (every tool with that tag) or "*" (every tool of tools/). */
const toolEntry = v.pipe(
  v.string(),
  v.regex(/^(\*|tag:[a-z0-9][a-z0-9_-]{0,31}|[a-zA-Z0-9_-]{1,64})$/, 'must be a tool name, "tag:<tag>" or "*"'),
);

export { SCOPES, type Scope } from "./scopes";

const KeySchema = v.strictObject({
  name: v.pipe(v.string(), v.regex(/^[a-zA-Z0-9_.-]{1,64}$/, "must be 1-64 letters, digits, _ . or -")),
  hash: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/, "must be the SHA-256 of the key as 64 lowercase hex characters")),
  scopes: v.pipe(
    v.array(v.picklist(SCOPES, 'must be "call" or "admin"')),
    v.minLength(1, "must name at least one scope"),
  ),
  /** May act for the app's users: "token" (signed user tokens) or "header" (also plain user ids). */
  actAs: v.optional(v.picklist(ACT_AS, 'must be "token" or "header"')),
  /** Its callers' code mode; absent: the tenant's default. */
  codeMode: codeModeField,
});

const origin = v.pipe(
  v.string(),
  v.regex(/^https?:\/\/[^/\s]+$/, "must be an origin like https://console.example.com (scheme and host, no path)"),
);

const hostName = v.pipe(
  v.string(),
  v.regex(/^[a-z0-9.-]+(:\d{1,5})?$/, "must be a lowercase host name, optionally with a port, like tools.example.com"),
);

/** Every field but the optional blocks (CONFIG_BLOCKS), whose schemas are a module apart. */
const CORE_FIELDS = {
  name: v.pipe(
    v.string(),
    v.regex(/^[a-z][a-z0-9-]{0,39}$/, "must be lowercase letters, digits and -, starting with a letter, at most 40"),
  ),
  /** Code tools (tools/) this tenant offers: names, "tag:<tag>" or "*". */
  tools: v.array(toolEntry),
  /** Per-tool policy overrides (JSON-expressible fields only). */
  policies: v.optional(v.record(toolName, PolicyDataSchema), {}),
  keys: v.pipe(v.array(KeySchema), v.minLength(1, "must hold at least one key")),
  limits: v.optional(
    v.strictObject({
      maxBodyBytes: v.optional(intIn(1024, 100 * MiB), DEFAULT_LIMITS.maxBodyBytes),
      maxCallsPerBatch: v.optional(intIn(1, 1024), DEFAULT_LIMITS.maxCallsPerBatch),
      bodyTimeoutMs: v.optional(intIn(100, 300_000), DEFAULT_LIMITS.bodyTimeoutMs),
    }),
    {},
  ),
  /** Calls of these tools or risk levels wait for an admin's approval. */
  requireApprovalFor: v.optional(
    v.strictObject({
      risk: v.optional(v.array(v.picklist(["low", "medium", "high"]))),
      tools: v.optional(v.array(toolName)),
    }),
  ),
  /** Tools that are listed but always denied. */
  deny: v.optional(v.array(toolName), []),
  /** Origins of consoles served elsewhere that may call the API from a browser (CORS). */
  consoleOrigins: v.optional(v.array(origin), []),
  /**
   * Host names this deployment answers on (its workers.dev name, custom domains). /mcp refuses any
   * other Host header (DNS-rebinding protection); loopback names are always accepted, for wrangler dev.
   */
  hosts: v.optional(v.array(hostName), []),
  /** Secret name (as tools see it) → name of the Worker secret or var holding its value. */
  secrets: v.optional(
    v.record(
      v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must be an identifier")),
      v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must name a Worker secret (an identifier)")),
    ),
    {},
  ),
  /**
   * When a short read-only call's record is stored: "before-answer" (its answer waits for the ledger,
   * so a repeated id answers the recorded outcome everywhere) or "after-answer" (its answer goes at
   * once and the record follows, batched with the isolate's others; see docs/ledger.md).
   */
  readOnlyRecords: v.optional(
    v.picklist(["before-answer", "after-answer"], 'must be "before-answer" or "after-answer"'),
    "before-answer",
  ),
  /** Fetch adapters (HTTP APIs, OpenAPI documents, remote MCP servers) and egress: see worker/adapters/config.ts. */
  ...ADAPTER_FIELDS,
};

/*
 * The optional blocks, each a field of its own (worker/config-blocks/lazy/entry.ts): identity (who the
 * people behind calls are, their roles), search (search mode for large catalogues), telemetry
 * (OpenTelemetry traces), connections (the OAuth providers through which tools act as the user),
 * codeMode (a tool running a program over the tenant's tools) and endpoints (curated MCP endpoints).
 */
type BlockSchema<K extends ConfigBlock> = ReturnType<ConfigBlocksLibrary["BLOCK_SCHEMAS"][K]>;
type CoreSchema = v.StrictObjectSchema<typeof CORE_FIELDS, undefined>;

export type TenantConfigInput = v.InferInput<CoreSchema> & { [K in ConfigBlock]?: v.InferInput<BlockSchema<K>> };
export type TenantConfig = v.InferOutput<CoreSchema> & { [K in ConfigBlock]?: v.InferOutput<BlockSchema<K>> } & {
  limits: { maxBodyBytes: number; maxCallsPerBatch: number; bodyTimeoutMs: number };
};

let core: CoreSchema | undefined;
let withBlocks: v.GenericSchema | undefined;

/**
 * The schema `value` is checked with: with the optional blocks once their module is loaded, else
 * without them, which serves a configuration that has none. Throws when `value` has one and the module
 * is not loaded: readyTenant (and every other caller) loads it first.
 */
function schemaFor(value: unknown): v.GenericSchema {
  const library = configBlocks();
  if (library) {
    const schemas: Record<ConfigBlock, () => v.GenericSchema> = library.BLOCK_SCHEMAS;
    const blocks = CONFIG_BLOCKS.map((block) => [block, v.optional(v.lazy(schemas[block]))]);
    return (withBlocks ??= v.strictObject({ ...CORE_FIELDS, ...Object.fromEntries(blocks) }));
  }
  if (isPlainObject(value) && CONFIG_BLOCKS.some((block) => Object.hasOwn(value, block)))
    throw new Error("The configuration blocks' schemas are not loaded: call loadConfigBlocks() before parsing");
  return (core ??= v.strictObject(CORE_FIELDS));
}

function describe(issue: v.BaseIssue<unknown>): string {
  let path = "";
  for (const item of issue.path ?? []) {
    const key = item.key;
    path += typeof key === "number" ? `[${key}]` : path === "" ? String(key) : `.${String(key)}`;
  }
  return `${path || "(root)"}: ${issue.message}`;
}

/** Parse and check a configuration (JSON text or a value). Throws ConfigError listing the bad fields. */
export function parseTenantConfig(input: string | unknown, source = "TOOLGATE_CONFIG"): TenantConfig {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new ConfigError(`${source} is not valid JSON: ${(error as Error).message}`);
    }
  }
  const parsed = v.safeParse(schemaFor(value), value);
  if (!parsed.success) {
    const shown = parsed.issues.slice(0, 5).map(describe);
    const more = parsed.issues.length > shown.length ? ` (and ${parsed.issues.length - shown.length} more)` : "";
    throw new ConfigError(`${source} is invalid: ${shown.join("; ")}${more}`);
  }
  const config = parsed.output as Omit<TenantConfig, "limits"> & { limits: Partial<TenantConfig["limits"]> };
  const keyNames = new Set<string>();
  config.keys.forEach((key, i) => {
    if (keyNames.has(key.name))
      throw new ConfigError(`${source} is invalid: keys[${i}].name: duplicate key name "${key.name}"`);
    keyNames.add(key.name);
  });
  const unplaced = codeModeWithoutBlock(config);
  if (unplaced) throw new ConfigError(`${source} is invalid: ${unplaced}`);
  // What the connections need of the identity block (the blocks' module is loaded: the config has connections).
  const problem = config.connections && configBlocks()?.connectionsProblem(config.connections, config.identity);
  if (problem) throw new ConfigError(`${source} is invalid: ${problem}`);
  return { ...config, limits: { ...DEFAULT_LIMITS, ...config.limits } };
}
