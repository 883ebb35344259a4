import type * as v from "valibot";
import type { AskMethod, ElicitationMode, InputRequest } from "./ask";
import type { JsonSchema, JsonValue } from "./json";
import type { Content, Progress } from "./result";
import type { CallUser } from "./contract/users";

export type { Progress } from "./result";
import { checkPolicy, type ToolPolicy } from "./policy";
import { valibotToJsonSchema } from "./schema/valibot";
import { hashJson } from "./hash";
import { valibotValidator, type Validator } from "./validation";
import { checkNeeds, checkTags, type ToolNeeds } from "./tool-needs";
import { checkRender, type ToolRender } from "./tool-render";

export type { ToolNeeds } from "./tool-needs";
export type { ToolRender } from "./tool-render";

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

export interface ToolLogger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
}

/** A connection a tool acts as the user through, and the scopes it needs of it. */
export interface ConnectionNeed {
  readonly name: string;
  readonly scopes: readonly string[];
  /**
   * A token of it the upstream just refused (401): the host gives another (refreshed), or asks the user
   * to connect again, never this one.
   */
  readonly rejected?: string;
}

/** What a host may ask the caller with while it gets a connection's token: the call's ctx.ask and ctx.canAsk. */
export type ConnectionAsker = Pick<ToolContext, "ask" | "canAsk">;

/**
 * The host's per-user connections: the calling user's token of a connection (see ToolContext.connectionToken).
 * `asker`: the call's ctx, so the host may ask the user to connect (a URL-mode elicitation) instead of refusing.
 */
export type ConnectionTokens = (need: ConnectionNeed, asker?: ConnectionAsker) => Promise<string>;

/** What a tool's run() receives besides its arguments. */
export interface ToolContext {
  /** Aborted on timeout, cancellation or batch abort. */
  readonly signal: AbortSignal;
  readonly callId: string;
  readonly tenant: string;
  /** 1 on the first attempt, 2 on the first retry, … */
  readonly attempt: number;
  readonly secrets: Readonly<Record<string, string>>;
  /**
   * The user the call is made for (a person signed in, a person's connector, or the user an app acts
   * for), as the runtime verified it; undefined for a call made for nobody. Never a credential.
   */
  readonly user: Readonly<CallUser> | undefined;
  /** fetch bound to the runtime's egress policy. */
  readonly fetch: typeof fetch;
  progress(update: Progress): void;
  readonly log: ToolLogger;
  /**
   * Asks the caller (ask.ts): answers at once when the call carries the answer to `key`; otherwise the
   * call ends asking (`input_required`) and is made again with the answer. Rejects, without asking,
   * when the caller cannot be asked this (canAsk).
   */
  ask(key: string, request: InputRequest): Promise<JsonValue>;
  /**
   * The calling user's access token of a connection, granted `scopes` (a tool acting as the user: an
   * adapter's `connection`). Rejects with the call's error when the call has no user or the user has
   * not connected (naming where to connect). Absent where the runtime keeps no connections. Given the
   * call's ctx as `asker`, the host may ask the user to connect first (an MCP client: a URL-mode elicitation).
   */
  readonly connectionToken?: ConnectionTokens;
  /** Whether this call's caller answers questions of this method (an elicitation: in this mode, form by default). */
  canAsk(method: AskMethod, mode?: ElicitationMode): boolean;
  /**
   * Opens a client span under the attempt's (a traced call; else undefined): for a protocol that carries
   * trace context in its messages (MCP's `params._meta`). Upstream requests made until it ends are its children.
   */
  span?(name: string, attributes: Readonly<Record<string, string | number | boolean>>): ToolSpan | undefined;
}

/** A span a tool opened (ToolContext.span): its W3C context for the message it sends, and its end. */
export interface ToolSpan {
  readonly traceparent: string;
  readonly tracestate?: string;
  /** Ends it, failed when `error` is given (its error.type). */
  end(error?: string): void;
}

const RICH = Symbol.for("toolgate.rich");

/** Rich content (text, images, resource links) plus optional structured output. */
export interface RichResult {
  readonly [RICH]: true;
  content: Content[];
  structured?: JsonValue;
  /** The tool already cut its output (e.g. an adapter capped an upstream response). */
  truncated?: true;
}

/** Return this from run() to send rich content instead of a plain value. */
export function richResult(content: Content[], structured?: JsonValue, options?: { truncated?: boolean }): RichResult {
  const result: RichResult =
    structured === undefined ? { [RICH]: true, content } : { [RICH]: true, content, structured };
  if (options?.truncated) result.truncated = true;
  return result;
}

export function isRichResult(value: unknown): value is RichResult {
  return typeof value === "object" && value !== null && (value as { [RICH]?: unknown })[RICH] === true;
}

/** run() may return a string, any JSON value, nothing, or rich content. */
export type ToolReturn = string | JsonValue | RichResult | undefined | void;

/**
 * What a tool's own author says of it in MCP's terms (a remote MCP server's ToolAnnotations):
 * information shown in MCP listings where the tenant's policy is silent, never policy itself.
 */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A tool: data plus one function. Built by defineTool() or by adapters; always frozen. */
// The registry holds them all, so:
// biome-ignore lint/suspicious/noExplicitAny: a Tool of any arguments and result is assignable to Tool
export interface Tool<A = any, R = any> {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /** "valibot", "json-schema", "mcp:<url>", "openapi", "http" */
  readonly source: string;
  readonly policy: Readonly<ToolPolicy<A>>;
  /** Labels a host offers tools by (a tenant's `"tag:math"`); not part of what a model sees. */
  readonly tags?: readonly string[];
  /** Secrets and egress origins run() needs: the host checks its configuration provides them. */
  readonly needs?: ToolNeeds;
  /** Hints from the tool's author (remote MCP servers), apart from the policy that governs it. */
  readonly annotations?: Readonly<ToolAnnotations>;
  /** How consoles show its calls and results (presentation only: not hashed, never sent to models). */
  readonly render?: ToolRender;
  readonly inputSchema: JsonSchema;
  readonly outputSchema?: JsonSchema;
  /** SHA-256 of the public definition (name, title, description, schemas, policy hints). */
  readonly hash: string;
  readonly validateInput: Validator<A>;
  readonly validateOutput?: Validator<R>;
  readonly run: (args: A, ctx: ToolContext) => ToolReturn | R | Promise<ToolReturn | R>;
}

export interface ToolSpec<I extends v.GenericSchema, O extends v.GenericSchema | undefined> {
  name: string;
  title?: string;
  description: string;
  input: I;
  output?: O;
  policy?: ToolPolicy<v.InferOutput<I>>;
  /** e.g. ["demo", "math"]: a tenant may offer every tool of a tag. */
  tags?: readonly string[];
  /** e.g. { secrets: ["WEATHER_KEY"], egress: ["https://api.weather.example"] }. */
  needs?: ToolNeeds;
  /** e.g. { call: "Add {a} and {b}", result: "table" }: how consoles show its calls and results. */
  render?: ToolRender;
  run: (
    args: v.InferOutput<I>,
    ctx: ToolContext,
  ) => O extends v.GenericSchema
    ? v.InferInput<O> | RichResult | Promise<v.InferInput<O> | RichResult>
    : ToolReturn | Promise<ToolReturn>;
}

export function checkToolName(name: unknown): string {
  if (typeof name !== "string" || !TOOL_NAME_PATTERN.test(name)) {
    throw new TypeError(
      `Invalid tool name ${JSON.stringify(name)}: must match ${TOOL_NAME_PATTERN} ` +
        `(letters, digits, _ and -, at most 64)`,
    );
  }
  return name;
}

/** What is hashed: everything a model or client sees of the tool. */
function publicDefinition(
  tool: Pick<Tool, "name" | "title" | "description" | "inputSchema" | "outputSchema" | "policy" | "annotations">,
) {
  return {
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    name: tool.name,
    title: tool.title ?? null,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema ?? null,
    readOnly: tool.policy.readOnly ?? false,
    risk: tool.policy.risk ?? "low",
    idempotent: tool.policy.idempotent ?? false,
  };
}

export interface ToolParts<A, R> {
  name: string;
  title?: string;
  description: string;
  source: string;
  policy?: ToolPolicy<A>;
  tags?: readonly string[];
  needs?: ToolNeeds;
  annotations?: ToolAnnotations;
  render?: ToolRender;
  /** Computed on first use: deriving schemas costs startup time a Worker should not pay for unused tools. */
  inputSchema: () => JsonSchema;
  outputSchema?: () => JsonSchema;
  validateInput: Validator<A>;
  validateOutput?: Validator<R>;
  run: Tool<A, R>["run"];
}

/** What a tool derives on first use, kept on the tool under a symbol for the shared getters below. */
interface Derived {
  deriveInput: () => JsonSchema;
  deriveOutput: (() => JsonSchema) | undefined;
  input?: JsonSchema;
  output?: JsonSchema;
  hash?: string;
}
const DERIVED = Symbol("toolgate.derived");
type Assembled = Tool & { readonly [DERIVED]: Derived };

/**
 * One set of getter functions for every tool. Getters written in the object literal were new closures
 * per tool, and V8 gives objects whose accessors differ different maps: from the second tool on, every
 * tool had slow dictionary properties, and each call reads several of them.
 */
const DERIVED_ACCESSORS: PropertyDescriptorMap = {
  inputSchema: {
    enumerable: true,
    get(this: Assembled) {
      const derived = this[DERIVED];
      return (derived.input ??= derived.deriveInput());
    },
  },
  outputSchema: {
    enumerable: true,
    get(this: Assembled) {
      const derived = this[DERIVED];
      return derived.deriveOutput ? (derived.output ??= derived.deriveOutput()) : undefined;
    },
  },
  hash: {
    enumerable: true,
    get(this: Assembled) {
      const derived = this[DERIVED];
      return (derived.hash ??= hashJson(publicDefinition(this)));
    },
  },
};

/** Assemble a frozen Tool from parts; shared by defineTool and the adapters. */
export function assembleTool<A, R>(parts: ToolParts<A, R>): Tool<A, R> {
  checkToolName(parts.name);
  if (typeof parts.description !== "string") throw new TypeError(`Tool "${parts.name}": description must be a string`);
  const policy = Object.freeze({ ...checkPolicy(parts.name, parts.policy) });
  // Built property by property in the order the literal had, so tools alike share one map.
  const tool: Record<PropertyKey, unknown> = {};
  const derived: Derived = { deriveInput: parts.inputSchema, deriveOutput: parts.outputSchema };
  Object.defineProperty(tool, DERIVED, { value: derived });
  tool.name = parts.name;
  if (parts.title !== undefined) tool.title = parts.title;
  tool.description = parts.description;
  tool.source = parts.source;
  tool.policy = policy;
  if (parts.tags !== undefined) tool.tags = checkTags(parts.name, parts.tags);
  if (parts.needs !== undefined) tool.needs = checkNeeds(parts.name, parts.needs);
  if (parts.annotations !== undefined) tool.annotations = Object.freeze({ ...parts.annotations });
  if (parts.render !== undefined) tool.render = checkRender(parts.name, parts.render);
  Object.defineProperties(tool, DERIVED_ACCESSORS);
  tool.validateInput = parts.validateInput;
  if (parts.validateOutput) tool.validateOutput = parts.validateOutput;
  tool.run = parts.run;
  return Object.freeze(tool) as unknown as Tool<A, R>;
}

/** A tool's JSON Schemas, as its inputSchema and outputSchema answer them. */
export interface ToolSchemas {
  input: JsonSchema;
  output?: JsonSchema;
}

/**
 * Whether reading the tool's schemas would still derive one (a code tool's valibot schema converted on
 * first use): a host that cannot convert synchronously prepares the converter or presets them first.
 */
export function schemasPending(tool: Tool): boolean {
  const derived = (tool as Partial<Assembled>)[DERIVED];
  if (!derived) return false;
  return derived.input === undefined || (derived.deriveOutput !== undefined && derived.output === undefined);
}

/**
 * Gives a tool the JSON Schemas derived from the same definition ahead of time (a build that ran this
 * tool's file), so it never derives them. Schemas already derived are kept.
 */
export function presetSchemas(tool: Tool, schemas: ToolSchemas): void {
  const derived = (tool as Partial<Assembled>)[DERIVED];
  if (!derived) return;
  derived.input ??= schemas.input;
  if (derived.deriveOutput && schemas.output !== undefined) derived.output ??= schemas.output;
}

/** Define a code tool from valibot schemas: argument and result types are inferred from them. */
export function defineTool<I extends v.GenericSchema, O extends v.GenericSchema | undefined = undefined>(
  spec: ToolSpec<I, O>,
): Tool<v.InferOutput<I>, O extends v.GenericSchema ? v.InferOutput<O> : unknown> {
  const name = checkToolName(spec.name);
  if (typeof spec.run !== "function") throw new TypeError(`Tool "${name}": run must be a function`);
  const output = spec.output as v.GenericSchema | undefined;
  return assembleTool({
    name,
    ...(spec.title === undefined ? {} : { title: spec.title }),
    description: spec.description,
    source: "valibot",
    ...(spec.policy === undefined ? {} : { policy: spec.policy }),
    ...(spec.tags === undefined ? {} : { tags: spec.tags }),
    ...(spec.needs === undefined ? {} : { needs: spec.needs }),
    ...(spec.render === undefined ? {} : { render: spec.render }),
    inputSchema: () => valibotToJsonSchema(spec.input, name),
    ...(output
      ? { outputSchema: () => valibotToJsonSchema(output, name), validateOutput: valibotValidator(output) }
      : {}),
    validateInput: valibotValidator(spec.input),
    run: spec.run as Tool["run"],
  });
}
