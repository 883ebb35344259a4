/**
 * A tenant's configuration bundled into its Worker (tenants/<name>.json, registered by the generated
 * entry module tenants/<name>.ts). Bundled rather than a var: Cloudflare caps each environment
 * variable at 5 KB, which a handful of adapter declarations already exceeds.
 */

/** The precomputed listings file of a bundled configuration, imported on first use (its module is text). */
export type ListingsLoader = () => Promise<{ default: string }>;

export interface BundledConfig {
  /** The parsed JSON: checked by parseTenantConfig on first use, like the var. */
  config: unknown;
  /** Where it came from, for error messages ("tenants/acme.json is invalid: …"). */
  source: string;
  /**
   * Its listings precomputed by the build (tenants/<name>.listings.generated.txt, see
   * listings/precomputed.ts), imported on the first listing; used only when their key matches.
   */
  listings?: ListingsLoader;
}

let bundled: BundledConfig | undefined;

/** Called once at module init by a tenant's entry module, before any request. */
export function useBundledConfig(config: unknown, source: string, listings?: ListingsLoader): void {
  bundled = { config, source, ...(listings ? { listings } : {}) };
}

export function bundledConfig(): BundledConfig | undefined {
  return bundled;
}
