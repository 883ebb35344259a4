import { isPlainObject, type JsonObject } from "../json";
import { isRunning, resultText, type CallResult, type Content } from "../result";
import { requireObjectRoot, type ObjectSchema } from "../schema/walk";
import type { Tool } from "../tool";
import type { Format } from "./format";
import type { ToolCall } from "../tool-call";
import {
  DecodeError,
  decodeSafely,
  generateId,
  isRecord,
  requireRecord,
  requireString,
  visibleContent,
} from "./shared";

/** MCP ToolAnnotations: hints for clients, derived from the tool's policy and source. */
export interface McpToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint?: boolean;
}

/** An MCP Tool as tools/list returns it. */
export interface McpTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema?: ObjectSchema;
  annotations: McpToolAnnotations;
}

/** An MCP CallToolResult (a type alias, so it fits the SDK's open `[key: string]: unknown` shape). */
export type McpCallToolResult = {
  content: Content[];
  structuredContent?: JsonObject;
  isError?: true;
};

/** MCP params carry no call id; toolgate makes one per call. */
const GENERATED = "mcp-";

function isCallParams(value: unknown): boolean {
  return isRecord(value) && typeof value.name === "string" && !("type" in value) && !("function" in value);
}

function isCallRequest(value: unknown): boolean {
  return isRecord(value) && value.method === "tools/call";
}

function detect(body: unknown): boolean {
  const items = Array.isArray(body) ? body : [body];
  return (
    items.length > 0 &&
    items.every((item) => isCallRequest(item) || (isCallParams(item) && "arguments" in (item as object)))
  );
}

/**
 * JSON-RPC request ids are per-session counters (1, 2, 3 …), so they would collide in the journal's
 * idempotency by call id; every call gets a fresh id instead and answers keep input order.
 */
function decodeOne(item: unknown, at: string | undefined): ToolCall {
  const record = requireRecord(item, at ?? "body");
  let params = record;
  let where = at ?? "params";
  if ("method" in record) {
    const request = at ?? "request";
    if (record.method !== "tools/call")
      throw new DecodeError(`${request}.method must be "tools/call", got ${JSON.stringify(record.method)}.`);
    where = `${request}.params`;
    params = requireRecord(record.params, where);
  }
  return { id: generateId(GENERATED), name: requireString(params, "name", where), arguments: params.arguments };
}

function decodeCalls(body: unknown): ToolCall[] {
  if (Array.isArray(body)) return body.map((item, i) => decodeOne(item, `[${i}]`));
  if (!isRecord(body))
    throw new DecodeError("Expected tools/call params { name, arguments }, a tools/call request, or an array of them.");
  return [decodeOne(body, undefined)];
}

/** The CallToolResult the MCP endpoint answers tools/call with. */
export function toCallToolResult(result: CallResult): McpCallToolResult {
  if (!result.ok) {
    const content: Content[] = [{ type: "text", text: resultText(result) }];
    // A call running on (detached) has not failed.
    return isRunning(result) ? { content } : { content, isError: true };
  }
  const { structured } = result.output;
  const content = visibleContent(result.output);
  // MCP's structuredContent is an object; other JSON values travel as text only.
  return isPlainObject(structured) ? { content, structuredContent: structured as JsonObject } : { content };
}

/**
 * Annotations from policy. Read-only tools are neither destructive nor effectful when repeated. For the
 * others, MCP's default (destructive) holds unless the author declared the risk low; idempotency says
 * nothing about destructiveness (a delete is idempotent and destructive). Code tools may or may not
 * reach the outside world, so openWorldHint is left to MCP's default; adapter tools always do.
 *
 * A remote MCP server's own hints fill in what the tenant's policy leaves unsaid (no readOnly, risk or
 * idempotent declared): they are information for the client, as the server gave them. Where the
 * policy speaks, it wins, and toolgate itself acts on the policy alone (retries, approvals).
 */
function annotationsOf(tool: Tool): McpToolAnnotations {
  const { readOnly, risk, idempotent } = tool.policy;
  const remote = tool.annotations ?? {};
  const readOnlyHint = readOnly ?? remote.readOnlyHint ?? false;
  const fromPolicy = {
    destructiveHint: !readOnlyHint && risk !== "low",
    idempotentHint: readOnlyHint || idempotent === true,
  };
  const openWorld = tool.source === "valibot" ? undefined : (remote.openWorldHint ?? true);
  return {
    readOnlyHint,
    destructiveHint:
      readOnly === undefined && risk === undefined && remote.destructiveHint !== undefined
        ? !readOnlyHint && remote.destructiveHint
        : fromPolicy.destructiveHint,
    idempotentHint:
      readOnly === undefined && idempotent === undefined && remote.idempotentHint !== undefined
        ? readOnlyHint || remote.idempotentHint
        : fromPolicy.idempotentHint,
    ...(openWorld === undefined ? {} : { openWorldHint: openWorld }),
  };
}

export const mcp: Format<McpTool, { results: McpCallToolResult[] }, McpCallToolResult> = {
  name: "mcp",
  detect,
  decode: (body) => decodeSafely(decodeCalls, body),
  encode: (results: readonly CallResult[]) => ({ results: results.map(toCallToolResult) }),
  encodeResult: toCallToolResult,
  toolDefinition(tool: Tool): McpTool {
    // MCP requires object roots for both schemas; a non-object output schema is simply not advertised.
    const output = tool.outputSchema;
    const outputSchema =
      output !== undefined && output.type === "object" ? { outputSchema: output as ObjectSchema } : {};
    return {
      name: tool.name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      description: tool.description,
      inputSchema: requireObjectRoot(tool.name, tool.inputSchema, "MCP"),
      ...outputSchema,
      annotations: annotationsOf(tool),
    };
  },
  // Bare tools/call params carry no id: MCP's ids belong to its JSON-RPC requests.
  modelOutput: (calls) => calls.map(({ name, args }) => ({ name, arguments: args })),
};
