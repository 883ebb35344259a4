/**
 * Code mode's host (worker/code-mode/lazy/entry.ts), compiled and evaluated on a tenant's first code run.
 * It is a module of its own beside the bundle (code-mode/library.generated.mjs, written by
 * scripts/code-mode-module.mjs; wrangler.toml's find_additional_modules uploads it): tenants without
 * code mode never load it.
 * At worker/'s root for the same reason as oauth-library.ts: the import's specifier is resolved from the
 * bundle's root.
 */
export type CodeModeLibrary = typeof import("./code-mode/lazy/entry");

export function codeModeLibrary(): Promise<CodeModeLibrary> {
  return import("./code-mode/library.generated.mjs");
}
