/**
 * The identity library (jose, oauth4webapi, and toolgate's code over them: worker/identity/lazy/),
 * compiled and evaluated on first use. It is a module of its own beside the bundle
 * (identity/library.generated.mjs, written by scripts/identity-module.mjs; wrangler.toml's
 * find_additional_modules uploads it), and workerd compiles a module only when it is first imported:
 * no isolate parses it at startup, and tenants without identity never do. At worker/'s root for the
 * same reason as oauth-library.ts: the import's specifier is resolved from the bundle's root.
 */
export type IdentityLibrary = typeof import("./identity/lazy/entry");
export type {
  Answer,
  DiscoveryResult,
  JwtFailureReason,
  JwtResult,
  OidcFailureReason,
  VerifyJwtOptions,
} from "./identity/lazy/entry";

export function identityLibrary(): Promise<IdentityLibrary> {
  return import("./identity/library.generated.mjs");
}
