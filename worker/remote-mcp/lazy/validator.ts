import type * as JsonSchemaPackage from "@cfworker/json-schema";

/**
 * @cfworker/json-schema as the client's module sees it (scripts/remote-mcp-module.mjs puts this file in
 * the package's place): the Worker's own validator, handed over by remote-mcp-library.ts as it loads the
 * module, so an isolate holds one copy of the library wherever the package puts its modules.
 */
type PackageValidator = typeof JsonSchemaPackage.Validator;

let host: PackageValidator | undefined;

/** Hands the module the Worker's validator (before any tool of a remote server is made). */
export function useValidator(validator: PackageValidator): void {
  host = validator;
}

/** The Worker's Validator (a constructor may answer another object: the real validator). */
export const Validator = class {
  constructor(...args: ConstructorParameters<PackageValidator>) {
    if (!host)
      throw new Error("The remote MCP client has no JSON Schema validator: remote-mcp-library.ts hands it one");
    // biome-ignore lint/correctness/noConstructorReturn: stands in for the package's class
    return new host(...args);
  }
} as unknown as PackageValidator;
