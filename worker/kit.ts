/**
 * The Worker kit, `toolgate/worker`: one call builds a Worker (the HTTP API, MCP, OAuth sign-in) from a
 * project's code tools and tenant configuration. The project's entry module exports what it answers:
 *
 *   const toolgate = createToolgate({ tools: [add], tenant: { config, source: "tenants/main.json" } });
 *   export const { Runner, ToolgateService } = toolgate;
 *   export * from "toolgate/worker/objects";
 *   export default toolgate;
 *
 * @module toolgate/worker
 */
import type { Hono } from "hono";
import type { Tool } from "../src/tool";
import { createApp } from "./app";
import { createToolgateService } from "./entrypoint";
import type { AppEnv } from "./env";
import { errorBody } from "./errors";
import { createRunnerClass } from "./runner/runner";
import type { BuildFailure } from "./tenant/build-failure";
import type { BundledConfig, ListingsLoader } from "./tenant/bundled-config";
import { createCatalog, type Catalog } from "./tenant/catalog";

export type { BuildFailure } from "./tenant/build-failure";
export type { ListingsLoader } from "./tenant/bundled-config";
export type { Catalog } from "./tenant/catalog";
export type { RpcAnswer } from "./entrypoint";

/** A tenant configuration bundled into the Worker (say, `tenants/main.json`, imported). */
export interface TenantSource {
  /** The configuration, as parsed JSON: checked on first use, a mistake answers 500 config_invalid naming it. */
  config: unknown;
  /** Where it came from, for error messages ("tenants/main.json is invalid: …"). */
  source?: string;
  /** Its listings precomputed by a build, imported on the first listing; used only while their key matches. */
  listings?: ListingsLoader;
}

export interface ToolgateOptions {
  /** The project's code tools; the configuration offers them by name, by tag or all ("*"). Names are unique. */
  tools: readonly Tool[] | Catalog;
  /**
   * The tenant's configuration. Without one, the Worker serves the JSON var TOOLGATE_CONFIG (which also
   * overrides this one, for local runs), or the demo tenant where the var TOOLGATE_DEMO is "true".
   */
  tenant?: TenantSource;
  /**
   * Serve under this path ("/tools"): a request to `/tools/v1/calls` reaches the API's `/v1/calls`, and
   * one outside it answers 404. The console and OAuth sign-in for MCP clients need the origin's root.
   */
  basePath?: string;
  /** A failed development build: every request answers 503 with it (none: undefined). */
  buildFailure?: BuildFailure | undefined;
}

/** What `createToolgate` builds: the entry module's default export and the classes it exports. */
export interface Toolgate {
  /** The Worker's fetch handler (`export default toolgate`), or a mounted app's handler for its path. */
  fetch(request: Request, env: unknown, ctx: ExecutionContext): Promise<Response>;
  /** Whether a request is for this kit (under `basePath`): an existing Worker routes those to `fetch`. */
  handles(request: Request): boolean;
  /** The Durable Object class running detached calls of these tools, exported as `Runner`. */
  Runner: ReturnType<typeof createRunnerClass>;
  /** The RPC entrypoint for Workers bound to this one (a service binding), exported as `ToolgateService`. */
  ToolgateService: ReturnType<typeof createToolgateService>;
  /** The Hono app, its routes at the root (`basePath` is applied by `fetch`). */
  app: Hono<AppEnv>;
}

const isToolList = (tools: readonly Tool[] | Catalog): tools is readonly Tool[] => Array.isArray(tools);

/** A path prefix: "" for the root, else "/a/b" (one leading slash, none trailing). */
function normalBasePath(basePath = ""): string {
  const path = `/${basePath.replace(/^\/+|\/+$/g, "")}`;
  if (path === "/") return "";
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) {
    throw new TypeError(`basePath "${basePath}" must be a path of letters, digits and ._~- segments, like "/tools"`);
  }
  return path;
}

function catalogOf(tools: readonly Tool[] | Catalog): Catalog {
  if (!isToolList(tools)) return tools;
  const seen = new Set<string>();
  for (const tool of tools) {
    if (typeof tool?.name !== "string") throw new TypeError("tools: each entry must be a tool made by defineTool");
    if (seen.has(tool.name)) throw new TypeError(`tools: two tools are named "${tool.name}"`);
    seen.add(tool.name);
  }
  return createCatalog(tools);
}

/**
 * The Worker for these tools and this tenant. Call it once, at the top of the entry module: the classes
 * it answers must be exported under the names wrangler.toml binds (`Runner`, and `ToolgateService` for
 * service bindings); the other Durable Objects come from `toolgate/worker/objects`.
 */
export function createToolgate(options: ToolgateOptions): Toolgate {
  const catalog = catalogOf(options.tools);
  const base = normalBasePath(options.basePath);
  const bundled: BundledConfig | undefined = options.tenant && {
    config: options.tenant.config,
    source: options.tenant.source ?? "the tenant configuration",
    ...(options.tenant.listings ? { listings: options.tenant.listings } : {}),
  };
  const app = createApp({
    catalog,
    ...(bundled ? { bundled } : {}),
    ...(options.buildFailure ? { buildFailure: options.buildFailure } : {}),
  });
  const inside = (path: string) => base === "" || path === base || path.startsWith(`${base}/`);
  const fetch = (request: Request, env: unknown, ctx: ExecutionContext): Promise<Response> => {
    const bindings = env as AppEnv["Bindings"];
    if (base === "") return Promise.resolve(app.fetch(request, bindings, ctx));
    const url = new URL(request.url);
    if (!inside(url.pathname)) {
      const body = errorBody("not_found", `No route for ${request.method} ${url.pathname}.`);
      return Promise.resolve(Response.json(body, { status: 404 }));
    }
    url.pathname = url.pathname.slice(base.length) || "/";
    return Promise.resolve(app.fetch(new Request(url, request), bindings, ctx));
  };
  return {
    fetch,
    handles: (request) => inside(new URL(request.url).pathname),
    Runner: createRunnerClass(catalog),
    ToolgateService: createToolgateService(app),
    app,
  };
}
