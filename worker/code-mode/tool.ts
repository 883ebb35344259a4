import * as v from "valibot";
import { toolError } from "../../src/errors";
import type { JsonValue } from "../../src/json";
import type { Registry, ToolEntry } from "../../src/registry";
import { defineTool, type Tool, type ToolContext } from "../../src/tool";
import { loadedCodeModeLibrary } from "../code-mode-library";
import type { CodeModeConfig } from "./config";

/** Longest program, in characters. */
export const MAX_CODE_CHARS = 100_000;

/** What code mode reads of a tenant view (worker/tenant/tenant.ts Tenant). */
export interface CodeModeTenant {
  registry: Registry;
  config: { deny: readonly string[]; search?: { tool: string } | undefined; codeMode?: CodeModeConfig | undefined };
}

/** How a bound code tool runs a program (worker/code-mode/mode.ts gives each caller's). */
export type CodeToolRun = (args: { code: string }, ctx: ToolContext) => Promise<JsonValue>;

/** The tools a program may call: the tenant's, less the code and search tools and the denied ones. */
export function programTools(tenant: CodeModeTenant): string[] {
  const { config } = tenant;
  const left = new Set([config.codeMode?.tool, config.search?.tool, ...config.deny]);
  return tenant.registry.names().filter((name) => !left.has(name));
}

function describe(tenant: CodeModeTenant): string {
  const tools = programTools(tenant).flatMap((name) => {
    const tool = tenant.registry.get(name);
    return tool ? [tool] : [];
  });
  return loadedCodeModeLibrary().codeToolDescription(tools);
}

const unbound: CodeToolRun = () => {
  // worker/code-mode/mode.ts binds the tool to each caller's calls; it cannot without the loader.
  throw toolError(
    "internal",
    'Code mode needs a Worker Loader binding named "LOADER" ([[worker_loaders]] in wrangler.toml).',
  );
};

/** The code tool over this tenant view's tools, its description declaring them; `run` runs a program. */
export function createCodeTool(config: CodeModeConfig, tenant: CodeModeTenant, run: CodeToolRun = unbound): Tool {
  return defineTool({
    name: config.tool,
    title: "Run code",
    description: describe(tenant),
    input: v.object({
      code: v.pipe(
        v.string(),
        v.minLength(1, "must be a program"),
        v.maxLength(MAX_CODE_CHARS),
        v.description("The body of an async function calling `tools`; its return value is the result."),
      ),
    }),
    tags: ["code-mode"],
    run,
  });
}

/** The code tool a tenant with `codeMode` offers, built on first use (it declares the tenant's other tools). */
export function codeToolEntryOf(
  config: CodeModeConfig | undefined,
  tenant: () => CodeModeTenant,
): ToolEntry | undefined {
  return config ? { name: config.tool, build: () => createCodeTool(config, tenant()) } : undefined;
}
