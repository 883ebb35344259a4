/**
 * The optional blocks of a tenant's configuration whose schemas are a module of their own beside the
 * bundle (config-blocks/library.generated.mjs, written by scripts/config-blocks-module.mjs from
 * config-blocks/lazy/entry.ts; wrangler.toml's find_additional_modules uploads it): a tenant whose
 * configuration has none of them never loads it. readyTenant (tenant/ready.ts) loads it before it
 * parses a configuration that may have one; parseTenantConfig then checks them synchronously. At
 * worker/'s root for the same reason as oauth-library.ts: the import's specifier is resolved from the
 * bundle's root.
 */
export type ConfigBlocksLibrary = typeof import("./config-blocks/lazy/entry");
export { CONFIG_BLOCKS, type ConfigBlock } from "./config-blocks/names";

let library: ConfigBlocksLibrary | undefined;

/** The blocks' schemas, once loaded. */
export function configBlocks(): ConfigBlocksLibrary | undefined {
  return library;
}

export async function loadConfigBlocks(): Promise<void> {
  library ??= await import("./config-blocks/library.generated.mjs");
}
