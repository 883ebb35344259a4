/**
 * The remote MCP client as a module of its own beside the bundle (remote-mcp/library.generated.mjs,
 * written by scripts/remote-mcp-module.mjs from remote-mcp/lazy/entry.ts; wrangler.toml's
 * find_additional_modules uploads it): a tenant without `mcp` servers never loads it. readyTenant
 * (tenant/ready.ts) loads it before it builds a tenant that may have some; the tenant's live tools
 * (tenant/live-adapters.ts) then make their clients synchronously. It validates with the Worker's
 * JSON Schema validator, handed to it here. At worker/'s root for the same reason
 * as oauth-library.ts: the import's specifier is resolved from the bundle's root.
 */
import { Validator } from "@cfworker/json-schema";

export type RemoteMcpLibrary = typeof import("./remote-mcp/lazy/entry");

let library: RemoteMcpLibrary | undefined;

export function remoteMcpLoaded(): boolean {
  return library !== undefined;
}

export async function loadRemoteMcp(): Promise<void> {
  if (library) return;
  const loaded = await import("./remote-mcp/library.generated.mjs");
  // The Worker's validator (the bundle's stand-in for the package, or the package itself in Node).
  loaded.useValidator(Validator);
  library = loaded;
}

/** The loaded client; throws, naming who loads it, before it was. */
export function remoteMcp(): RemoteMcpLibrary {
  if (!library)
    throw new Error(
      "The remote MCP client is not loaded: readyTenant (worker/tenant/ready.ts) loads it before a tenant " +
        "that may have `mcp` servers is built",
    );
  return library;
}
