/**
 * The core, `toolgate`: tools, the registry, the pipeline, the formats, the adapters and the typed
 * client, for browsers, Workers and Node. No side effects: importing this module runs nothing.
 *
 * @module toolgate
 */
export { defineTool, assembleTool, richResult, isRichResult, checkToolName, TOOL_NAME_PATTERN } from "./tool";
export type {
  Tool,
  ToolContext,
  ToolSpec,
  ToolReturn,
  RichResult,
  Progress,
  ToolLogger,
  ToolSpan,
  ToolParts,
  ToolNeeds,
  ToolRender,
  ConnectionAsker,
  ConnectionNeed,
  ConnectionTokens,
} from "./tool";
export { callSummary, RESULT_LAYOUTS, schemaDefaults } from "./tool-render";
export type { ResultLayout } from "./tool-render";
export type { ToolPolicy, RetryPolicy, ConcurrencyPolicy, ApprovalPolicy, Risk } from "./policy";
export { PolicyDataSchema } from "./policy";
export { ERROR_CODES, toolError, isToolError, isRetryableCode } from "./errors";
export type { ErrorCode, ToolError, ToolErrorOptions, ValidationIssue } from "./errors";
export { statusForError, resultText } from "./result";
export type { CallResult, CallRecord, CallOutput, CallError, CallStatus, Content, PermissionDecision } from "./result";
export { createRegistry } from "./registry";
export type { Registry } from "./registry";
export { executeCall, executeCallNow } from "./pipeline/execute";
export { executeBatch } from "./pipeline/batch";
export type { ExecuteOptions, BatchOptions, Limits } from "./options";
export { composeHooks } from "./hooks";
export type { Hooks, HookCall, RetryDecision } from "./hooks";
export type { CallEvent } from "./events";
export type { CallTracer } from "./tracer";
export { createCallTracer, type CallTracerOptions, type RequestTracer } from "./telemetry/call-tracer";
export { formatTraceparent, parseTraceparent, type TraceContext } from "./telemetry/trace-context";
export type { SpanAttribute, TraceSpan } from "./telemetry/span";
export { encodeOtlpJson, type SpanSource } from "./telemetry/otlp-json";
export type { Limiter, SlotRequest, SlotGrant } from "./gates/limiter";
export { createLocalLimiter } from "./gates/local-limiter";
export type { CallJournal, CallToClaim, JournalClaim } from "./journal";
export { valibotToJsonSchema } from "./schema/valibot";
export { hashJson, canonicalJson } from "./hash";
export { createMasker } from "./mask";
export type { ToolCall } from "./tool-call";
export type { Format, Decoded, SampleCall } from "./formats/format";
export type { FormatName } from "./formats/index";
export { FORMATS, FORMAT_NAMES, getFormat, detectFormat, toCallToolResult, FormatSchemaError } from "./formats/index";
// Each format on its own too: an app that uses one bundles that one (FORMATS holds them all).
export {
  openai as openaiFormat,
  openaiResponses as openaiResponsesFormat,
  anthropic as anthropicFormat,
  gemini as geminiFormat,
  mcp as mcpFormat,
} from "./formats/index";
export { toOpenAIParameters } from "./formats/openai-schema";
export { toGeminiParameters } from "./formats/gemini-schema";
export { dropNullOptionals } from "./schema/strict-nulls";
export type { JsonValue, JsonSchema } from "./json";
export { httpTool } from "./adapters/http";
export type { HttpToolDeps } from "./adapters/http";
export { openApiTools } from "./adapters/openapi";
export type { OpenApiDeclaration } from "./adapters/openapi";
export { mcpServer } from "./adapters/mcp";
export type { McpToolSource, McpServerDeps, McpServerDeclaration, RemoteDefinition, PinStore } from "./adapters/mcp";
export type { UpstreamGate } from "./adapters/upstream";
export type { HttpToolDeclaration, AuthDeclaration, ConnectionUse, RateLimit } from "./adapters/declarations";
export { ADAPTER_KINDS } from "./adapters/kinds";
export type { AdapterSection } from "./adapters/kinds";
export type { AdapterKind, AdapterDeclaration, AdapterDeps } from "./adapters/kind";
export { checkEgress, createEgressFetch } from "./egress";
export type { EgressPolicy } from "./egress";
export { jsonSchemaValidator } from "./schema/json-schema";
export { createClient, ApiError, isApiError, resultOfRecord } from "./client";
export type { ToolgateClient, ClientOptions, EventStreamOptions, MixedOptions, MixedAnswer } from "./client";
export type * from "./contract";
