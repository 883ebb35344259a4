/**
 * valibot's JSON Schema converter (@valibot/to-json-schema), compiled and evaluated on first use. In the
 * Worker's bundle this module stands in for the package (wrangler.toml [alias]); the package itself is a
 * module beside the bundle (to-json-schema/library.generated.mjs, written by
 * scripts/to-json-schema-module.mjs). The build precomputes the JSON Schemas of the code tools of tools/
 * (tenant/tool-schemas.ts), so a Worker loads it only for a code tool the build did not see (an app's,
 * the search tool): readyTenant (tenant/ready.ts) loads it before such a tenant is built, and the core
 * then converts synchronously, as it does with the package. At worker/'s root for the same reason as
 * oauth-library.ts: the import's specifier is resolved from the bundle's root.
 */
import type * as ToJsonSchemaPackage from "@valibot/to-json-schema";

type Library = typeof ToJsonSchemaPackage;

let library: Library | undefined;

export function toJsonSchemaLibraryLoaded(): boolean {
  return library !== undefined;
}

export async function loadToJsonSchemaLibrary(): Promise<void> {
  library ??= await import("./to-json-schema/library.generated.mjs");
}

/** The package's converter, once loaded. */
export const toJsonSchema: Library["toJsonSchema"] = (...args) => {
  if (!library)
    throw new Error("The JSON Schema converter is not loaded (readyTenant loads it for tools it must convert)");
  return library.toJsonSchema(...args);
};
