import { RpcTarget } from "cloudflare:workers";
import type { ExecuteOptions } from "../../src/options";
import { createRegistry, type Registry } from "../../src/registry";
import { scopedFrom } from "../endpoints/view";
import type { CodeMode } from "./modes";
import { loadedCodeModeLibrary } from "../code-mode-library";
import type { CodeModeDeps, CodeModeTenant, RunWaits } from "./lazy/tool";
import { CORE_DEPS } from "./tool";

type Host = { call(name: unknown, args: unknown): Promise<string> };

/** The run's host as the sandbox reaches it: an RpcTarget with one method, its tool calls. */
class HostTarget extends RpcTarget {
  readonly #host: Host;
  constructor(host: Host) {
    super();
    this.#host = host;
  }
  call(name: unknown, args: unknown): Promise<string> {
    return this.#host.call(name, args);
  }
}

const DEPS: CodeModeDeps = { ...CORE_DEPS, expose: (host) => new HostTarget(host) };

/**
 * The registry these options' calls run with, its code tool bound to them (tenants with `codeMode`;
 * the module is loaded by readyTenant); `allowed` is the caller's allow-list; `waits`, how a run waits
 * for a call's approval (without it, the run ends there).
 */
export function withCodeTool(
  tenant: CodeModeTenant,
  loader: WorkerLoader | undefined,
  options: ExecuteOptions,
  allowed?: ReadonlySet<string>,
  waits?: RunWaits,
): Registry {
  if (!tenant.config.codeMode) return options.registry;
  return loadedCodeModeLibrary().withCodeTool(tenant, loader, options, allowed, DEPS, waits);
}

/**
 * The tenant view (whole, or an endpoint's) as this caller sees code mode (lazy/view.ts callerView);
 * a view made for it is noted as scoped from `view`.
 */
export function callerView<T extends CodeModeTenant & { listings: Map<string, unknown> }>(
  view: T,
  caller: { codeMode?: CodeMode; tools?: ReadonlySet<string> } | undefined,
  endpoint?: { codeMode?: CodeMode | undefined },
): T {
  if (!view.config.codeMode) return view;
  const deps = { ...CORE_DEPS, createRegistry, scopedFrom };
  return loadedCodeModeLibrary().callerView(view, caller, endpoint, deps);
}
