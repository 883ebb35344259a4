import type { createRegistry as CreateRegistryFn, Registry } from "../../../src/registry";
import type { CodeModeConfig } from "../config";
import type { CodeMode } from "../modes";
import { type CodeModeDeps, type CodeModeTenant, createCodeTool } from "./tool";

/** What a code-mode view reads of a tenant view (worker/tenant/tenant.ts Tenant, whose callers import this module). */
export interface ViewedTenant extends CodeModeTenant {
  config: CodeModeTenant["config"] & { codeMode?: CodeModeConfig | undefined };
  listings: Map<string, unknown>;
  precomputed?: unknown;
}

/** What the Worker's bundle hands a view: the core it holds, and where it notes a view's whole tenant. */
export type ViewDeps = Omit<CodeModeDeps, "expose"> & {
  createRegistry: typeof CreateRegistryFn;
  scopedFrom: (view: object, base: object) => void;
};

/** Views kept per base view: one per mode and allow-list, at most this many (the oldest goes first). */
const MAX_VIEWS = 64;
const views = new WeakMap<object, Map<string, object>>();

/**
 * The tenant view `base` as a caller of this code mode and allow-list sees it: without a code tool
 * ("off"), or with one whose API is the base's tools on the allow-list ("on", "only"). Its config's
 * `codeMode.default` is the view's mode (listings read "only" there). Kept per base view.
 */
function codeModeView<T extends ViewedTenant>(
  base: T,
  mode: CodeMode,
  allowed: ReadonlySet<string> | undefined,
  deps: ViewDeps,
): T {
  const config = base.config.codeMode!;
  const key = `${mode}\n${mode === "off" || !allowed ? "" : [...allowed].sort().join("\n")}`;
  let kept = views.get(base);
  const found = kept?.get(key) as T | undefined;
  if (found) return found;
  const { precomputed: _, ...own } = base;
  const view = {
    ...own,
    config: { ...base.config, codeMode: { ...config, default: mode } },
    listings: new Map(),
    ...(mode !== "off" && allowed ? { programScope: allowed } : {}),
  } as unknown as T;
  const others = base.registry.names().filter((name) => name !== config.tool);
  const entries = others.map((name) => ({ name, build: () => base.registry.get(name)! }));
  const code = { name: config.tool, build: () => createCodeTool(config, view, deps) };
  view.registry = deps.createRegistry(mode === "off" ? entries : [...entries, code]) as Registry;
  if (!kept) views.set(base, (kept = new Map()));
  if (kept.size >= MAX_VIEWS) kept.delete(kept.keys().next().value!);
  kept.set(key, view);
  deps.scopedFrom(view, base);
  return view;
}

/**
 * The tenant view (whole, or an endpoint's) as this caller sees code mode: the endpoint's `codeMode`,
 * else its key's, else the tenant's default. With "on" or "only" its code tool's API is the view's
 * tools on the caller's allow-list; with "off" it has none. The view itself when it already fits.
 */
export function callerView<T extends ViewedTenant>(
  view: T,
  caller: { codeMode?: CodeMode; tools?: ReadonlySet<string> } | undefined,
  endpoint: { codeMode?: CodeMode | undefined } | undefined,
  deps: ViewDeps,
): T {
  const config = view.config.codeMode!;
  const mode = endpoint?.codeMode ?? caller?.codeMode ?? config.default;
  const current = view.registry.has(config.tool) ? config.default : "off";
  if (mode === current && (mode === "off" || !caller?.tools)) return view;
  return codeModeView(view, mode, caller?.tools, deps);
}
