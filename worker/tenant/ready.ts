import { ADAPTER_SECTIONS } from "../../src/adapters/kinds";
import { isPlainObject } from "../../src/json";
import { bundledConfig, type BundledConfig } from "./bundled-config";
import { CATALOG, type Catalog } from "./catalog";
import { DEMO_CONFIG } from "../demo/tenant";
import { checkConnectionSecrets } from "../connections/config";
import { connectionSecrets } from "../connections/secret";
import { oidcClientSecret } from "../identity/config";
import { jsonSchemaLibraryLoaded, loadJsonSchemaLibrary } from "../json-schema-library";
import { loadTenant, type Tenant } from "./tenant";
import { codeModeLibrary } from "../code-mode-library";

/**
 * loadTenant, with the JSON Schema library loaded first whenever the configuration may declare tools
 * (http, openapi, mcp: their schemas are JSON Schemas, some checked as the tenant is built). A tenant
 * of code tools alone never loads it. Once loaded, no request waits for it again. A tenant whose
 * console sign-in or connection needs a Worker secret that is not set throws ConfigError naming it: every request
 * answers 500 config_invalid (as /healthz does), so a deploy missing it shows at once.
 */
export async function readyTenant(
  env: Record<string, unknown>,
  bundled: BundledConfig | undefined = bundledConfig(),
  catalog: Catalog = CATALOG,
): Promise<Tenant> {
  if (!jsonSchemaLibraryLoaded() && mayDeclareTools(env, bundled)) await loadJsonSchemaLibrary();
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

/** The configuration loadTenant would take (same precedence); a var's text may declare anything. */
function mayDeclareTools(env: Record<string, unknown>, bundled: BundledConfig | undefined): boolean {
  if (env.TOOLGATE_CONFIG !== undefined && env.TOOLGATE_CONFIG !== "") return true;
  const config = bundled ? bundled.config : env.TOOLGATE_DEMO === "true" ? DEMO_CONFIG : undefined;
  return isPlainObject(config) && ADAPTER_SECTIONS.some((section) => config[section] !== undefined);
}
