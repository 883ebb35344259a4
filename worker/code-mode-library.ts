/**
 * Code mode (worker/code-mode/lazy/entry.ts): the code tool, its description and its host, loaded by readyTenant
 * for a tenant with codeMode.
 * It is a module of its own beside the bundle (code-mode/library.generated.mjs, written by
 * scripts/code-mode-module.mjs; wrangler.toml's find_additional_modules uploads it): tenants without
 * code mode never load it.
 * At worker/'s root for the same reason as oauth-library.ts: the import's specifier is resolved from the
 * bundle's root.
 */
export type CodeModeLibrary = typeof import("./code-mode/lazy/entry");

let library: CodeModeLibrary | undefined;

/** Loads the module (once); readyTenant (tenant/ready.ts) does it before a tenant with code mode is used. */
export async function codeModeLibrary(): Promise<CodeModeLibrary> {
  library ??= await import("./code-mode/library.generated.mjs");
  return library;
}

/** The module, once loaded: the code tool's description is built synchronously, with the registry. */
export function loadedCodeModeLibrary(): CodeModeLibrary {
  if (!library) throw new Error("code mode: library not loaded (readyTenant loads it)");
  return library;
}
