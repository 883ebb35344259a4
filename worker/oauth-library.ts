/**
 * The OAuth library (@cloudflare/workers-oauth-provider), compiled and evaluated on first use. It is a
 * module of its own beside the bundle (oauth/provider.generated.mjs, written from the package by
 * scripts/oauth-module.mjs; wrangler.toml's find_additional_modules uploads it), and workerd compiles a
 * module only when it is first imported: no isolate parses the library at startup, and requests with
 * keys never do. This file sits at worker/'s root because wrangler keeps the import's specifier as
 * written, and the bundle resolves it from that root.
 */
export type OAuthLibrary = typeof import("@cloudflare/workers-oauth-provider");

export function oauthLibrary(): Promise<OAuthLibrary> {
  return import("./oauth/provider.generated.mjs");
}
