import { ADAPTER_SECTIONS } from "../../src/adapters/kinds";
import { isPlainObject } from "../../src/json";
import { bundledConfig, type BundledConfig } from "./bundled-config";
import { CATALOG, type Catalog } from "./catalog";
import { demoConfig } from "../demo/identity";
import { checkConnectionSecrets } from "../connections/client-secret";
import { connectionSecrets } from "../connections/secret";
import { oidcClientSecret } from "../identity/settings";
import { CONFIG_BLOCKS, configBlocks, loadConfigBlocks } from "../config-blocks-library";
import { jsonSchemaLibraryLoaded, loadJsonSchemaLibrary } from "../json-schema-library";
import { loadRemoteMcp, remoteMcpLoaded } from "../remote-mcp-library";
import { loadTenant, type Tenant } from "./tenant";
import { readyToolSchemas } from "./tool-schemas";
import { codeModeLibrary } from "../code-mode-library";

/**
 * loadTenant, with what it needs loaded first, each a module apart: the optional configuration blocks'
 * schemas whenever the configuration may have one (config-blocks-library.ts); the JSON Schema library
 * whenever it may declare tools (http, openapi, mcp: their schemas are JSON Schemas, some checked as the
 * tenant is built); valibot's JSON Schema converter for code tools whose schemas the build did not
 * precompute (tool-schemas.ts); the remote MCP client whenever it may have `mcp` servers
 * (remote-mcp-library.ts). A tenant of the build's code tools alone loads none. Once loaded, no
 * request waits for them again. A tenant whose console sign-in or connection needs a Worker secret that
 * is not set throws ConfigError naming it: every request answers 500 config_invalid (as /healthz does),
 * so a deploy missing it shows at once.
 */
export async function readyTenant(
  env: Record<string, unknown>,
  bundled: BundledConfig | undefined = bundledConfig(),
  catalog: Catalog = CATALOG,
): Promise<Tenant> {
  const config = configOf(env, bundled);
  if (!configBlocks() && mayHold(config, CONFIG_BLOCKS)) await loadConfigBlocks();
  if (!jsonSchemaLibraryLoaded() && (typeof config === "string" || mayHold(config, ADAPTER_SECTIONS)))
    await loadJsonSchemaLibrary();
  if (!remoteMcpLoaded() && mayHold(config, MCP)) await loadRemoteMcp();
  // The search tool is a code tool of the tenant's own (its schema made from the configuration).
  await readyToolSchemas(catalog, mayHold(config, SEARCH));
  const tenant = loadTenant(env, bundled, catalog);
  // Its code tool's description is built with the registry, synchronously, by the library.
  if (tenant.config.codeMode) await codeModeLibrary();
  oidcClientSecret(tenant.config.identity, env);
  if (tenant.config.connections) {
    checkConnectionSecrets(tenant.config.connections, env);
    connectionSecrets(env);
  }
  return tenant;
}

const SEARCH = ["search"];
const MCP = ["mcp"];

/**
 * The configuration loadTenant would take (same precedence): a var's text, or the bundled or demo
 * configuration's parsed JSON.
 */
function configOf(env: Record<string, unknown>, bundled: BundledConfig | undefined): unknown {
  const text = env.TOOLGATE_CONFIG;
  if (text !== undefined && text !== "") return text;
  return bundled ? bundled.config : env.TOOLGATE_DEMO === "true" ? demoConfig(env) : undefined;
}

/**
 * Whether the configuration may hold one of these top-level fields. A text may whenever it holds one
 * of their names as a JSON string, or any \u escape (which may spell one).
 */
function mayHold(config: unknown, fields: readonly string[]): boolean {
  if (typeof config === "string")
    return config.includes("\\u") || fields.some((field) => config.includes(JSON.stringify(field)));
  return isPlainObject(config) && fields.some((field) => Object.hasOwn(config, field));
}
