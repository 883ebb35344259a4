/**
 * A tenant's configuration bundled into its Worker (tenants/<name>.json, registered by the generated
 * entry module tenants/<name>.ts). Bundled rather than a var: Cloudflare caps each environment
 * variable at 5 KB, which a handful of adapter declarations already exceeds.
 */

export interface BundledConfig {
  /** The parsed JSON: checked by parseTenantConfig on first use, like the var. */
  config: unknown;
  /** Where it came from, for error messages ("tenants/acme.json is invalid: …"). */
  source: string;
}

let bundled: BundledConfig | undefined;

/** Called once at module init by a tenant's entry module, before any request. */
export function useBundledConfig(config: unknown, source: string): void {
  bundled = { config, source };
}

export function bundledConfig(): BundledConfig | undefined {
  return bundled;
}
