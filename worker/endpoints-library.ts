/**
 * Curated MCP endpoints' checks and tool selection (worker/endpoints/lazy/entry.ts), compiled and
 * evaluated on a tenant's first request to one of its endpoints. It is a module of its own beside the
 * bundle (endpoints/library.generated.mjs, written by scripts/endpoints-module.mjs; wrangler.toml's
 * find_additional_modules uploads it): tenants without endpoints never load it. At worker/'s root for
 * the same reason as oauth-library.ts: the import's specifier is resolved from the bundle's root.
 */
export type EndpointsLibrary = typeof import("./endpoints/lazy/entry");

export function endpointsLibrary(): Promise<EndpointsLibrary> {
  return import("./endpoints/library.generated.mjs");
}
