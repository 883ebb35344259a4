import { RpcTarget } from "cloudflare:workers";
import { toolError } from "../../src/errors";
import type { ExecuteOptions } from "../../src/options";
import { executeCall } from "../../src/pipeline/execute";
import type { Registry } from "../../src/registry";
import type { JsonValue } from "../../src/json";
import type { ToolContext } from "../../src/tool";
import { codeModeLibrary } from "../code-mode-library";
import { withReplaced } from "../tenant/replaced-tool";
import { type CodeModeTenant, type CodeToolRun, programTools } from "./tool";

/** The run's host as the sandbox reaches it: an RpcTarget with one method, its tool calls. */
class HostTarget extends RpcTarget {
  readonly #host: { call(name: unknown, args: unknown): Promise<string> };
  constructor(host: { call(name: unknown, args: unknown): Promise<string> }) {
    super();
    this.#host = host;
  }
  call(name: unknown, args: unknown): Promise<string> {
    return this.#host.call(name, args);
  }
}

/**
 * The code tool's run for these pipeline options (one request's, or a host finishing a claimed call):
 * each tool call of the program is a call of its own through the same pipeline — the caller's hooks
 * (allow-list, rate limit), approvals, gates, masking and journal — recorded with the run as parent.
 * A call is never detached: the program waits for it.
 */
function boundRun(
  tenant: CodeModeTenant,
  loader: WorkerLoader,
  options: ExecuteOptions,
  allowed?: ReadonlySet<string>,
) {
  const config = tenant.config.codeMode!;
  const run: CodeToolRun = async ({ code }, ctx: ToolContext) => {
    const names = programTools(tenant).filter((name) => !allowed || allowed.has(name));
    const { runCode } = await codeModeLibrary();
    const { runner: _detached, ...childOptions } = options;
    const end = await runCode({
      loader,
      code,
      names,
      config,
      signal: ctx.signal,
      expose: (host) => new HostTarget(host),
      runCall: (index, name, args) =>
        executeCall(
          { id: `${ctx.callId}.${index + 1}`, name, arguments: args, parent: ctx.callId },
          { ...childOptions, signal: ctx.signal },
        ),
    });
    if (!end.ok) throw toolError(end.code, end.message, { retryable: false });
    return end.output as unknown as JsonValue;
  };
  return run;
}

/**
 * The registry these options' calls run with, its code tool bound to them (tenants with `codeMode`);
 * `allowed` is the caller's allow-list: the program may call only tools on it.
 */
export function withCodeTool(
  tenant: CodeModeTenant,
  loader: WorkerLoader | undefined,
  options: ExecuteOptions,
  allowed?: ReadonlySet<string>,
): Registry {
  const config = tenant.config.codeMode;
  const tool = config && loader ? options.registry.get(config.tool) : undefined;
  if (!tool) return options.registry;
  // The tenant's tool (its description declared once per tenant view) with this caller's run.
  return withReplaced(options.registry, Object.freeze({ ...tool, run: boundRun(tenant, loader!, options, allowed) }));
}
