import { toolError } from "../../src/errors";
import { executeCall } from "../../src/pipeline/execute";
import type { ToolEntry } from "../../src/registry";
import { assembleTool } from "../../src/tool";
import { loadedCodeModeLibrary } from "../code-mode-library";
import { withReplaced } from "../tenant/replaced-tool";
import type { CodeModeConfig } from "./config";
import type { CodeModeDeps, CodeModeTenant } from "./lazy/tool";

/** The core the code-mode module uses, from the bundle; `expose` is the Worker's (worker/code-mode/mode.ts). */
export const CORE_DEPS: Omit<CodeModeDeps, "expose"> = { assembleTool, toolError, executeCall, withReplaced };

/**
 * The code tool a tenant with `codeMode` offers (not when its default is "off"), built on first use by
 * the code-mode module (loaded by readyTenant first): it declares the tenant's other tools. Bound to each
 * caller by worker/code-mode/mode.ts; a caller of another mode gets a view of its own (callerView).
 */
export function codeToolEntryOf(
  config: CodeModeConfig | undefined,
  tenant: () => CodeModeTenant,
): ToolEntry | undefined {
  if (!config || config.default === "off") return undefined;
  return { name: config.tool, build: () => loadedCodeModeLibrary().createCodeTool(config, tenant(), CORE_DEPS) };
}
