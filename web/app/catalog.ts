import type { FormatName } from "../../src/formats/index";
import type { ToolgateClient } from "../../src/client";
import type { ToolInfo } from "../../src/contract";
import { callSummary, schemaDefaults, type ToolRender } from "../../src/tool-render";

/** The tenant's tools, fetched once per page load (a tenant's registry is fixed per deployment). */
let tools: Promise<ToolInfo[]> | undefined;
const listings = new Map<FormatName, Promise<Map<string, unknown>>>();

/** Render hints by tool, from the last catalogue that arrived (views draw records synchronously). */
const renders = new Map<string, ToolRender>();
/** The defaults of each tool's top-level arguments, which its call summaries fill in. */
const defaults = new Map<string, Record<string, unknown>>();

/** How the tool asks its calls and results to be shown, once the catalogue has arrived. */
export function renderOf(tool: string): ToolRender | undefined {
  return renders.get(tool);
}

/**
 * A call's one-line summary from its tool's render hint, with the schema's defaults for what the call
 * left out ("Media sample “Sample” (440 Hz)"); undefined when the tool gives no summary.
 */
export function summaryOf(tool: string, args: unknown): string | undefined {
  const template = renders.get(tool)?.call;
  return template === undefined ? undefined : callSummary(template, args, defaults.get(tool));
}

export function catalog(client: ToolgateClient): Promise<ToolInfo[]> {
  tools ??= client.catalog().then((list) => {
    for (const tool of list) {
      if (tool.render) renders.set(tool.name, tool.render);
      defaults.set(tool.name, schemaDefaults(tool.inputSchema));
    }
    return list;
  });
  tools = tools.catch((error) => {
    tools = undefined;
    throw error;
  });
  return tools;
}

/** A tool's definition in a format, or a string saying why the format cannot express it. */
export async function definitionIn(client: ToolgateClient, format: FormatName, name: string): Promise<unknown> {
  let listing = listings.get(format);
  if (!listing) {
    listing = client.tools(format).then((answer) => {
      const byName = new Map<string, unknown>();
      for (const tool of answer.tools as unknown[]) byName.set(nameOf(tool), tool);
      for (const skipped of answer.skipped ?? [])
        byName.set(skipped.name, `Not expressible in ${format}: ${skipped.message}`);
      return byName;
    });
    listing.catch(() => listings.delete(format));
    listings.set(format, listing);
  }
  return (await listing).get(name) ?? `Not listed in ${format}.`;
}

/** Each format keeps the name somewhere else: OpenAI chat under `function`, the rest at the top. */
function nameOf(tool: unknown): string {
  const t = tool as { name?: string; function?: { name?: string } };
  return t.name ?? t.function?.name ?? "";
}
