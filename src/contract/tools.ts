import type { JsonSchema } from "../json";
import type { Format } from "../formats/format";
import type { FORMATS, FormatName } from "../formats/index";
import type { GateRules } from "../gates/rules";
import type { Risk } from "../policy";
import type { ToolRender } from "../tool-render";

type FormatModules = typeof FORMATS;

/** A tool as format F declares it (OpenAI function tool, Anthropic tool, …). */
export type DefinitionOf<F extends FormatName> = FormatModules[F] extends Format<infer D, unknown> ? D : never;
/** What the app appends to its conversation in format F. */
export type AnswerOf<F extends FormatName> = FormatModules[F] extends Format<unknown, infer A> ? A : never;

/** The model API's own tool search, by format, as a search-mode listing holds it (docs/search.md). */
export interface ToolSearchEntries {
  anthropic: { type: "tool_search_tool_bm25_20251119"; name: "tool_search_tool_bm25" };
  "openai-responses": { type: "tool_search" };
}

export interface ToolListing<F extends FormatName> {
  /** In search mode, the Anthropic and OpenAI Responses listings begin with their API's tool search. */
  tools: (DefinitionOf<F> | (F extends keyof ToolSearchEntries ? ToolSearchEntries[F] : never))[];
  /** Tools the format cannot express, with the reason. */
  skipped?: { name: string; message: string }[];
}

/** A tool with its effective policy as JSON (GET /v1/tools): what the console shows as badges. */
export interface ToolInfo {
  name: string;
  title?: string;
  description: string;
  /** "valibot" (code), "http", "openapi", "mcp:<url>", "json-schema". */
  source: string;
  hash: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  /** How consoles show its calls and results, when the tool says. */
  render?: ToolRender;
  policy: {
    risk: Risk;
    readOnly: boolean;
    idempotent: boolean;
    /** "conditional": a predicate on the arguments decides per call. */
    approval: "never" | "always" | "conditional";
    /** Absent: unlimited. keyed: one gate per resource; key: the JSON Pointer naming it, when it is one. */
    /**
     * The gate's rules (see src/gates/rules.ts), its group, whether calls are gated per resource
     * and, for a pointer, which.
     */
    concurrency?: GateRules & { group?: string; keyed: boolean; key?: string };
    timeoutMs?: number;
    retry?: { attempts: number };
    outputBudget?: number;
    /** On the tenant's deny list: listed, but every call is denied. */
    denied: boolean;
  };
}
