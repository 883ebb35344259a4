/**
 * Code mode's host (the code tool's description, the sandbox's source, its loading, limits and tool
 * calls), a module apart from the
 * Worker (scripts/code-mode-module.mjs → worker/code-mode/library.generated.mjs) that
 * worker/code-mode-library.ts imports on a tenant's first code run: tenants without code mode never load it.
 */
export { runCode, type CodeRun, type CodeRunEnd, type CodeRunOutput } from "./run";
export type { ChildCall, MadeCall, Waiting } from "./host";
export { parkedJob, replayWaits, waitingProgress, type RunMaker } from "./park";
export {
  childJournal,
  createCodeTool,
  withCodeTool,
  type CodeModeDeps,
  type CodeModeTenant,
  type ParkedRun,
  type RunWaits,
} from "./tool";
export { callerView, type ViewDeps, type ViewedTenant } from "./view";
