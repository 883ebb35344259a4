/**
 * The JSON Schema validator (@cfworker/json-schema), compiled and evaluated on first use. In the
 * Worker's bundle this module stands in for the package (wrangler.toml [alias]); the package itself is
 * a module beside the bundle (json-schema/library.generated.mjs, written by
 * scripts/json-schema-module.mjs), which workerd compiles only when it is first imported. Only tools
 * declared in configuration (http, openapi, mcp) have JSON Schemas, so a tenant whose tools are all
 * code tools never loads it; readyTenant (tenant/ready.ts) loads it before building any other tenant, and the
 * core then uses it synchronously, as it uses the package. At worker/'s root for the same reason as
 * oauth-library.ts: the import's specifier is resolved from the bundle's root.
 */
import type * as JsonSchemaPackage from "@cfworker/json-schema";

type Library = typeof JsonSchemaPackage;

let library: Library | undefined;

export function jsonSchemaLibraryLoaded(): boolean {
  return library !== undefined;
}

export async function loadJsonSchemaLibrary(): Promise<void> {
  library ??= await import("./json-schema/library.generated.mjs");
}

/** The package's Validator, once loaded (a constructor may answer another object: the real validator). */
export const Validator = class {
  constructor(...args: ConstructorParameters<Library["Validator"]>) {
    if (!library)
      throw new Error(
        "The JSON Schema library is not loaded: readyTenant (worker/tenant/ready.ts) loads it " +
          "before a tenant that may declare tools is built",
      );
    // biome-ignore lint/correctness/noConstructorReturn: stands in for the package's class until it is loaded
    return new library.Validator(...args);
  }
} as unknown as Library["Validator"];
