import type { toolError as ToolErrorFn } from "../../../src/errors";
import type { JsonSchema, JsonValue } from "../../../src/json";
import type { CallJournal } from "../../../src/journal";
import type { ExecuteOptions } from "../../../src/options";
import type { executeCall as ExecuteCallFn } from "../../../src/pipeline/execute";
import type { Registry } from "../../../src/registry";
import type { assembleTool as AssembleToolFn, Tool, ToolContext } from "../../../src/tool";
import type { Validation } from "../../../src/validation";
import type { withReplaced as WithReplacedFn } from "../../tenant/replaced-tool";
import type { CodeModeConfig } from "../config";
import { codeToolDescription } from "./description";
import type { MadeCall, ToolHost, Waiting } from "./host";
import { runCode, type SandboxLoader } from "./run";

/** Longest program, in characters. */
export const MAX_CODE_CHARS = 100_000;

/** What code mode reads of a tenant view (worker/tenant/tenant.ts Tenant). */
export interface CodeModeTenant {
  registry: Registry;
  config: { deny: readonly string[]; search?: { tool: string } | undefined; codeMode?: CodeModeConfig | undefined };
  /** A caller's allow-list its program's API is narrowed to (lazy/view.ts); absent: every tool. */
  programScope?: ReadonlySet<string>;
}

/**
 * What the Worker's bundle hands this module: the core it holds already (a second copy here would be
 * loaded twice), and the host's RpcTarget (the runtime's; this module imports none, so Node loads it).
 */
export interface CodeModeDeps {
  assembleTool: typeof AssembleToolFn;
  toolError: typeof ToolErrorFn;
  executeCall: typeof ExecuteCallFn;
  withReplaced: typeof WithReplacedFn;
  expose: (host: Pick<ToolHost, "call">) => object;
}

type CodeToolRun = (args: { code: string }, ctx: ToolContext) => Promise<JsonValue>;

/** A run held to wait for one of its calls' approval: what its host needs to run it again. */
export interface ParkedRun {
  runId: string;
  /** The run's claim: its record is finished with it. */
  owner: string;
  code: string;
  waiting: Waiting;
  /** The caller's allow-list, which the program's calls keep when it runs again. */
  allowed: string[] | undefined;
}

/** How runs with these options wait for a call's approval (a host that holds them), and what they replay. */
export interface RunWaits {
  /** Hold the run, to run it again from the start once its waiting call is decided; true once held. */
  park(run: ParkedRun): Promise<boolean>;
  /** The owner of the run's claim, when the host running it holds it already (a replay). */
  owner?: string;
  /** A replay: the calls the earlier run made before it waited, which this run must repeat. */
  replayed?: readonly (MadeCall | null)[];
}

/**
 * The tools a program may call: the tenant view's, less the code and search tools and the denied ones,
 * and only those of its allow-list.
 */
function programTools(tenant: CodeModeTenant): string[] {
  const { config, programScope } = tenant;
  const left = new Set([config.codeMode?.tool, config.search?.tool, ...config.deny]);
  return tenant.registry.names().filter((name) => !left.has(name) && (!programScope || programScope.has(name)));
}

const INPUT_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    code: {
      type: "string",
      minLength: 1,
      maxLength: MAX_CODE_CHARS,
      description: "The body of an async function calling `tools`; its return value is the result.",
    },
  },
  required: ["code"],
};

function validateInput(value: unknown): Validation<{ code: string }> {
  const code = typeof value === "object" && value !== null ? (value as { code?: unknown }).code : undefined;
  if (typeof code === "string" && code.length >= 1 && code.length <= MAX_CODE_CHARS)
    return { ok: true, value: { code } };
  const message = `must be a program: a string of 1 to ${MAX_CODE_CHARS} characters`;
  return { ok: false, issues: [{ path: "code", message }] };
}

/** The code tool over this tenant view's tools, its description declaring them; unbound until withCodeTool. */
export function createCodeTool(
  config: CodeModeConfig,
  tenant: CodeModeTenant,
  deps: Omit<CodeModeDeps, "expose">,
): Tool {
  const tools = programTools(tenant).flatMap((name) => {
    const tool = tenant.registry.get(name);
    return tool ? [tool] : [];
  });
  return deps.assembleTool({
    name: config.tool,
    title: "Run code",
    description: codeToolDescription(tools),
    source: "code-mode",
    // The pipeline's timeout of an attempt, past the run's own (which answers first, naming the calls made).
    policy: { timeoutMs: config.timeoutMs + 5_000 },
    tags: ["code-mode"],
    inputSchema: () => INPUT_SCHEMA,
    validateInput,
    run: () => {
      throw deps.toolError(
        "internal",
        'Code mode needs a Worker Loader binding named "LOADER" ([[worker_loaders]] in wrangler.toml).',
      );
    },
  });
}

/** The journal of a program's calls: each record stored (claimed, then final) with the run as its parent. */
export function childJournal(journal: CallJournal, parent: string): CallJournal {
  return {
    begin: (call) =>
      journal.begin(Object.defineProperty(Object.create(call), "record", { get: () => ({ ...call.record, parent }) })),
    finish: (record) => journal.finish({ ...record, parent }),
    ...(journal.handOff ? { handOff: (callId: string) => journal.handOff!(callId) } : {}),
    ...(journal.progress ? { progress: (callId, progress) => journal.progress!(callId, progress) } : {}),
  };
}

/**
 * The code tool's run for these pipeline options (one request's, or a host finishing a claimed call):
 * each tool call of the program is a call of its own through the same pipeline — the caller's hooks
 * (allow-list, rate limit), approvals, gates, masking and journal — recorded with the run as parent.
 * A call is never detached: the program waits for it.
 */
function boundRun(
  tenant: CodeModeTenant,
  loader: SandboxLoader,
  options: ExecuteOptions,
  allowed: ReadonlySet<string> | undefined,
  deps: CodeModeDeps,
  waits: RunWaits | undefined,
): CodeToolRun {
  const config = tenant.config.codeMode!;
  return async ({ code }, ctx) => {
    const names = programTools(tenant).filter((name) => !allowed || allowed.has(name));
    const { runner: _detached, journal, ...childOptions } = options;
    const recorded = journal ? { journal: childJournal(journal, ctx.callId) } : {};
    const end = await runCode({
      loader,
      code,
      names,
      config,
      signal: ctx.signal,
      expose: deps.expose,
      ...(waits?.replayed ? { replayed: waits.replayed } : {}),
      runCall: (index, name, args) =>
        deps.executeCall(
          { id: `${ctx.callId}.${index + 1}`, name, arguments: args },
          { ...childOptions, ...recorded, signal: ctx.signal },
        ),
    });
    if (end.ok) return end.output as unknown as JsonValue;
    // A held run runs again with the API it had (the view's tools on the allow-list), not the tenant's.
    const held = { runId: ctx.callId, code, options, allowed: new Set(names) };
    const parked = end.waiting && waits ? await park(waits, end.waiting, held) : false;
    if (parked) throw deps.toolError("running", waitingMessage(ctx.callId, end.waiting!), { retryable: false });
    throw deps.toolError(end.code, end.message, { retryable: false });
  };
}

/** What the caller of a run that waits is told: like a detached call's answer, naming the call it waits for. */
function waitingMessage(runId: string, waiting: Waiting): string {
  return (
    `The run ${runId} waits for the approval of its call ${waiting.child} ("${waiting.tool}"), then runs on; ` +
    "its outcome will be recorded and reported. Do not call it again."
  );
}

/**
 * Hands the run to the host that waits for its call's approval: the run's claim goes along (taken from
 * this request's journal, or the host's own), and is let go here only once the host holds the run.
 */
async function park(
  waits: RunWaits,
  waiting: Waiting,
  run: { runId: string; code: string; options: ExecuteOptions; allowed: ReadonlySet<string> | undefined },
): Promise<boolean> {
  const { runId, code, options } = run;
  const claim = waits.owner === undefined ? await options.journal?.handOff?.(runId) : { owner: waits.owner };
  if (!claim) return false;
  const allowed = run.allowed ? [...run.allowed] : undefined;
  const parked = await waits.park({ runId, owner: claim.owner, code, waiting, allowed }).catch(() => false);
  if (parked && "release" in claim) claim.release();
  return parked;
}

/**
 * The registry these options' calls run with, its code tool bound to them; `allowed` is the caller's
 * allow-list: the program may call only tools on it.
 */
export function withCodeTool(
  tenant: CodeModeTenant,
  loader: SandboxLoader | undefined,
  options: ExecuteOptions,
  allowed: ReadonlySet<string> | undefined,
  deps: CodeModeDeps,
  waits?: RunWaits,
): Registry {
  const config = tenant.config.codeMode;
  const tool = config && loader ? options.registry.get(config.tool) : undefined;
  if (!tool || !loader) return options.registry;
  const run = boundRun(tenant, loader, options, allowed, deps, waits);
  // The tenant's tool (its description declared once per tenant view) with this caller's run.
  return deps.withReplaced(options.registry, Object.freeze({ ...tool, run }));
}
