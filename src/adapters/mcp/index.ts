import { toolError } from "../../errors";
import { hashJson } from "../../hash";
import { isPlainObject, type JsonSchema } from "../../json";
import { jsonSchemaValidator } from "../../schema/json-schema";
import { assembleTool, TOOL_NAME_PATTERN, type Tool, type ToolAnnotations, type ToolLogger } from "../../tool";
import { parseDeclaration, policyOf } from "../declarations";
import { labelOf } from "../kind";
import { acceptsToolTasks, callRemoteTool } from "./call";
import { createMcpClient, type McpCallContext } from "./client";
import { fromCallResult } from "./content";
import { headerParamsOf, type HeaderParam } from "./headers";
import type { UpstreamGate } from "../upstream";
import { mcpKind, McpServerSchema, type McpServer, type McpServerDeclaration } from "./declaration";

export { mcpKind, McpServerSchema, type McpServer, type McpServerDeclaration } from "./declaration";

/** What pinning compares: everything of a remote tool that a model or policy sees. */
export interface RemoteDefinition {
  /** The local (prefixed) tool name. */
  tool: string;
  remoteName: string;
  /** SHA-256 of the canonical JSON of `definition`. */
  hash: string;
  definition: {
    name: string;
    title: unknown;
    description: unknown;
    inputSchema: unknown;
    outputSchema: unknown;
    annotations: unknown;
  };
  /** 2025 `execution.taskSupport` ("required": called as a task). Not pinned: it says how to call, not what runs. */
  taskSupport?: string;
}

/** Approved definition hashes, by local tool name (the Worker keeps them; admins approve). */
export interface PinStore {
  /** The definition hash an admin approved for the tool. */
  get(tool: string): string | undefined | Promise<string | undefined>;
  /** The definition hash an admin denied for the tool: calls of that definition are refused. */
  denied?(tool: string): string | undefined | Promise<string | undefined>;
}

export interface McpServerDeps {
  /** Egress-checked fetch and the tenant's secrets, for listing outside of a call. */
  fetch: typeof fetch;
  secrets: Readonly<Record<string, string>>;
  gate?: UpstreamGate;
  pins?: PinStore;
  log?: ToolLogger;
  now?: () => number;
}

/** A remote MCP server's tools, listed lazily and cached with a time-to-live. */
export interface McpToolSource {
  readonly name: string;
  /** "mcp:<url>", the tools' source in records. */
  readonly source: string;
  tools(signal?: AbortSignal): Promise<Tool[]>;
  definitions(signal?: AbortSignal): Promise<RemoteDefinition[]>;
  /** The list as cached, while within its time-to-live; undefined when it must be fetched (no I/O). */
  cached(): Tool[] | undefined;
  /** Forget the cached list (notifications/tools/list_changed does this). */
  invalidate(): void;
  /** Hold the server's event stream open to hear list_changed at once (long-lived runtimes). */
  watch(signal: AbortSignal): Promise<void>;
}

const MAX_PAGES = 50;

function definitionOf(raw: Record<string, unknown>, prefix: string): RemoteDefinition | undefined {
  if (typeof raw.name !== "string") return undefined;
  const definition = {
    name: raw.name,
    title: raw.title ?? null,
    description: raw.description ?? null,
    inputSchema: raw.inputSchema ?? null,
    outputSchema: raw.outputSchema ?? null,
    annotations: raw.annotations ?? null,
  };
  const tool = `${prefix}${raw.name}`.replace(/[^a-zA-Z0-9_-]/g, "_");
  const execution = isPlainObject(raw.execution) ? raw.execution : {};
  const taskSupport = typeof execution.taskSupport === "string" ? { taskSupport: execution.taskSupport } : {};
  return { tool, remoteName: raw.name, hash: hashJson(definition), definition, ...taskSupport };
}

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/** The server's ToolAnnotations, only the fields of the right type. */
function hintsOf(annotations: unknown): ToolAnnotations | undefined {
  if (!isPlainObject(annotations)) return undefined;
  const hints: ToolAnnotations = {};
  if (typeof annotations.title === "string") hints.title = annotations.title;
  for (const key of HINTS) if (typeof annotations[key] === "boolean") hints[key] = annotations[key];
  return Object.keys(hints).length > 0 ? hints : undefined;
}

/** Tools of a remote MCP server (Streamable HTTP), declared as data. Throws on a bad declaration. */
export function mcpServer(declaration: McpServerDeclaration, deps: McpServerDeps): McpToolSource {
  const label = labelOf(mcpKind, declaration);
  const decl: McpServer = parseDeclaration(McpServerSchema, declaration, label);
  const now = deps.now ?? Date.now;
  const allowed = decl.tools ? new Set(decl.tools) : undefined;
  const policy = policyOf(decl);
  const source = `mcp:${decl.url}`;
  const client = createMcpClient({
    url: decl.url,
    label,
    ...(decl.auth ? { auth: decl.auth } : {}),
    ...(deps.gate ? { gate: deps.gate } : {}),
    ...(decl.timeoutMs ? { maxWaitMs: decl.timeoutMs } : {}),
    onNotification: (method) => {
      if (method === "notifications/tools/list_changed") cache = undefined;
    },
  });
  let cache: { at: number; definitions: RemoteDefinition[]; tools: Tool[] } | undefined;
  let pending: Promise<NonNullable<typeof cache>> | undefined;

  async function refresh(ctx: McpCallContext): Promise<NonNullable<typeof cache>> {
    const definitions: RemoteDefinition[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.request("tools/list", cursor === undefined ? {} : { cursor }, ctx);
      const list = isPlainObject(result) && Array.isArray(result.tools) ? result.tools : [];
      for (const raw of list) {
        const def = isPlainObject(raw) ? definitionOf(raw, decl.prefix) : undefined;
        if (def && (!allowed || allowed.has(def.remoteName))) definitions.push(def);
      }
      cursor = isPlainObject(result) && typeof result.nextCursor === "string" ? result.nextCursor : undefined;
      if (cursor === undefined) break;
    }
    const era = await client.era(ctx);
    const taskTools = era.kind === "legacy" && acceptsToolTasks(await client.capabilities(ctx));
    const tools: Tool[] = [];
    for (const def of definitions) {
      try {
        tools.push(toTool(def, callable(def, era.kind === "modern", taskTools)));
      } catch (error) {
        deps.log?.warn(
          `${label}: tool "${def.remoteName}" skipped: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    return { at: now(), definitions, tools };
  }

  /** How to call a tool, or why it cannot be (then it is left out of the list). */
  function callable(def: RemoteDefinition, modern: boolean, taskTools: boolean): HeaderParam[] {
    if (!modern && def.taskSupport === "required" && !taskTools)
      throw new TypeError("it must run as a task, and the server does not accept task-augmented calls");
    if (!modern) return [];
    const params = headerParamsOf(def.definition.inputSchema);
    if (typeof params === "string") throw new TypeError(`invalid x-mcp-header: ${params}`);
    return params;
  }

  const fresh = () => (cache && now() - cache.at < decl.cacheTtlMs ? cache : undefined);

  function current(ctx: McpCallContext): Promise<NonNullable<typeof cache>> {
    const known = fresh();
    if (known) return Promise.resolve(known);
    pending ??= refresh(ctx)
      .then((fresh) => (cache = fresh))
      .finally(() => (pending = undefined));
    return pending;
  }

  async function checkPin(def: RemoteDefinition, ctx: McpCallContext): Promise<void> {
    const latest = (await current(ctx)).definitions.find((d) => d.remoteName === def.remoteName);
    if (!latest)
      throw toolError("tool_definition_changed", `${label} no longer offers the tool "${def.remoteName}"`, {
        retryable: false,
      });
    if (decl.pinning === "off" || !deps.pins) return;
    const pinned = await deps.pins.get(def.tool);
    if (pinned === latest.hash) return;
    if ((await deps.pins.denied?.(def.tool)) === latest.hash) {
      throw toolError(
        "tool_definition_changed",
        `The definition of "${def.tool}" on ${label} was denied by an admin; a new definition must be approved`,
        { retryable: false },
      );
    }
    if (pinned === undefined && decl.pinning === "changes") return;
    if (pinned !== latest.hash) {
      const why = pinned === undefined ? "has not been approved yet" : "changed since an admin approved it";
      throw toolError(
        "tool_definition_changed",
        `The definition of "${def.tool}" on ${label} ${why}; an admin must approve it`,
        { retryable: false },
      );
    }
  }

  function toTool(def: RemoteDefinition, headerParams: HeaderParam[]): Tool {
    if (!TOOL_NAME_PATTERN.test(def.tool)) throw new TypeError(`name "${def.tool}" is not a valid tool name`);
    const input = def.definition.inputSchema as JsonSchema;
    const output = isPlainObject(def.definition.outputSchema) ? (def.definition.outputSchema as JsonSchema) : undefined;
    const title =
      def.definition.title ??
      (isPlainObject(def.definition.annotations) ? def.definition.annotations.title : undefined);
    const annotations = hintsOf(def.definition.annotations);
    const spec = {
      remoteName: def.remoteName,
      url: decl.url,
      headerParams,
      ...(def.taskSupport ? { taskSupport: def.taskSupport } : {}),
    };
    return assembleTool({
      name: def.tool,
      ...(typeof title === "string" ? { title } : {}),
      description: typeof def.definition.description === "string" ? def.definition.description : "",
      source,
      // Only the declaration sets policy: remote annotations (readOnlyHint …) are shown, never obeyed.
      policy,
      ...(annotations ? { annotations } : {}),
      inputSchema: () => input,
      validateInput: jsonSchemaValidator(input),
      ...(output ? { outputSchema: () => output, validateOutput: jsonSchemaValidator(output) } : {}),
      async run(args, ctx) {
        const call: McpCallContext = {
          fetch: ctx.fetch,
          signal: ctx.signal,
          secrets: ctx.secrets,
          progress: (p) => ctx.progress(p),
          ...(ctx.span ? { span: ctx.span.bind(ctx) } : {}),
        };
        await checkPin(def, call);
        return fromCallResult(await callRemoteTool(client, label, spec, args, call), label);
      },
    });
  }

  const listing = (signal?: AbortSignal): McpCallContext => ({
    fetch: deps.fetch,
    secrets: deps.secrets,
    signal: signal ?? AbortSignal.timeout(decl.timeoutMs ?? 30_000),
  });

  return {
    name: decl.name,
    source,
    tools: async (signal) => (await current(listing(signal))).tools,
    definitions: async (signal) => (await current(listing(signal))).definitions,
    cached: () => fresh()?.tools,
    invalidate: () => void (cache = undefined),
    watch: (signal) => client.listen(listing(signal)),
  };
}
