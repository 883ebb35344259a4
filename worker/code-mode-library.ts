/**
 * Code mode's host (worker/code-mode/lazy/entry.ts), compiled and evaluated on a tenant's first code run.
 * At worker/'s root for the same reason as oauth-library.ts: the import's specifier is resolved from the
 * bundle's root.
 */
export type CodeModeLibrary = typeof import("./code-mode/lazy/entry");

export function codeModeLibrary(): Promise<CodeModeLibrary> {
  return import("./code-mode/lazy/entry");
}
