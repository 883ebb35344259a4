import type { Context } from "hono";
import type { BatchOptions } from "../src/options";
import { callerHooks } from "./caller-hooks";
import { connectionTokens } from "./connections/tokens";
import { USER_TOKEN_HEADER } from "./identity/act-as";
import type { AppEnv, Bindings } from "./env";
import { tenantGates } from "./gates/address";
import { createGateLimiter } from "./gates/limiter";
import { isolateSlots } from "./gates/slot-pool";
import { tenantLedger } from "./ledger/address";
import { createLedgerJournal } from "./ledger/journal";
import { storedUser } from "./ledger/viewer";
import { createCallRunner } from "./runner/host";
import { surfaceOf } from "./surface";
import { callerRegistry } from "./search/mode";
import { withCodeTool } from "./code-mode/mode";
import { requestWaits } from "./code-mode/waits";
import { resolveSecrets, type Tenant } from "./tenant/tenant";
import type { CallSurface } from "../src/contract/surface";
import type { CallUser, UserRef } from "../src/contract/users";

type WaitUntil = (promise: Promise<unknown>) => void;

/** Who runs the calls: a request for its key, or a host finishing a claimed call with its owner token. */
export type ExecutionRun =
  | {
      key: string;
      user?: UserRef;
      surface?: CallSurface;
      waitUntil?: WaitUntil;
      signal?: AbortSignal;
      configOverride?: string;
      /** The request's origin: where a call needing a connection tells the user to connect. */
      origin?: string;
      /** A Durable Object making calls as this key (a held code run): its ledger writes are its own. */
      writeScope?: string;
      /** The verified user token the user came from (Toolgate-User-Token): what an exchange connection trades. */
      userToken?: string;
    }
  | {
      owner: string;
      user?: CallUser;
      approved?: boolean;
      waitUntil?: WaitUntil;
      writeScope?: string;
      /** The origin of the request that made the call (a detached run: where its user connects). */
      origin?: string;
      /** A detached run's call id: a call needing a connection the user lacks parks until they connect. */
      parkCallId?: string;
    };

/**
 * Everything the core pipeline needs to run a tenant's calls: its registry, secrets and rules, gates
 * (limiter), the ledger (journal) and, for a request, the host of detached runs (runner).
 */
export function pipelineOptions(env: Bindings, tenant: Tenant, run: ExecutionRun): BatchOptions {
  const ledger = tenantLedger(env, tenant.name);
  const options: BatchOptions = {
    registry: tenant.registry,
    tenant: tenant.name,
    secrets: resolveSecrets(tenant.config, env),
    // Every tool's ctx.fetch: only to the adapters' origins and egress.allowHosts, re-checked on redirects.
    fetch: tenant.adapters.fetch,
    hooks: tenant.hooks,
    // A request's finished calls pass their slots to the isolate's next calls of the gate; a host
    // finishing a claimed call (a detached run, an approved call) releases at once.
    limiter: createGateLimiter(
      tenantGates(env, tenant.name),
      "key" in run && run.writeScope === undefined
        ? { waitUntil: run.waitUntil, pools: isolateSlots }
        : { waitUntil: run.waitUntil },
    ),
    // Whom the calls are for: ctx.user, hooks' call.user, "@user" gate keys (a claimed call keeps its row's).
    ...(run.user ? { user: run.user } : {}),
    // Tools acting as the user get its token of their connection (tenants with `connections` only).
    ...(tenant.config.connections ? { connectionTokens: connectionTokens(env, tenant, run.user, run) } : {}),
  };
  if ("owner" in run) {
    // A claimed call finished by its owner token (an approved call, a detached run): its record stays
    // its caller's. It runs here to its end, so it is never detached again.
    const claimed: BatchOptions = {
      ...options,
      ...(run.approved ? { approved: true } : {}),
      journal: createLedgerJournal({
        ledger,
        owner: run.owner,
        waitUntil: run.waitUntil,
        ...(run.writeScope === undefined ? {} : { writeScope: run.writeScope }),
      }),
    };
    // An approved code run runs its program here: its tool calls are this host's calls, as the run's.
    claimed.registry = withCodeTool(tenant, env.LOADER, claimed);
    return claimed;
  }
  // Records belong to the key (or OAuth grant) making the calls: a call-scope caller reads only its own.
  return {
    ...options,
    journal: createLedgerJournal({
      ledger,
      key: run.key,
      ...(run.user ? { user: run.user } : {}),
      ...(run.surface ? { surface: run.surface } : {}),
      waitUntil: run.waitUntil,
      readOnlyRecords: tenant.config.readOnlyRecords,
      ...(run.writeScope === undefined ? {} : { writeScope: run.writeScope }),
    }),
    runner: createCallRunner(env, tenant.name, run.configOverride, run.origin),
    ...(run.signal ? { signal: run.signal } : {}),
  };
}

/** The request's user token, when the caller's user came from it (verified by actAs): a subject to exchange. */
function userTokenOf(c: Context<AppEnv>): { userToken?: string } {
  const token = c.get("tenant").config.connections && c.get("caller").user?.source === "app-token";
  return token ? { userToken: c.req.header(USER_TOKEN_HEADER)! } : {};
}

/**
 * The pipeline options of this request's calls, made with its key (or OAuth grant), whose own rules
 * (a tool allow-list, a rate limit) join the tenant's hooks.
 */
export function executionOptions(c: Context<AppEnv>): BatchOptions {
  const waitUntil = waitUntilOf(c);
  const options = pipelineOptions(c.env, c.get("tenant"), {
    key: c.get("caller").keyName,
    ...(c.get("caller").user ? { user: storedUser(c.get("caller").user)! } : {}),
    surface: surfaceOf(c),
    signal: c.req.raw.signal,
    origin: new URL(c.req.url).origin,
    ...userTokenOf(c),
    ...(waitUntil ? { waitUntil } : {}),
    // A local override of the configuration (TOOLGATE_CONFIG) may be this request's own (tests hand the
    // app an env of theirs): a detached run takes it along. Deployed tenants bundle theirs, so nothing travels.
    ...(c.env.TOOLGATE_CONFIG ? { configOverride: c.env.TOOLGATE_CONFIG } : {}),
  });
  // A tenant in search mode: its search tool answers only what this caller may use.
  options.registry = callerRegistry(c.get("tenant"), c.get("caller"));
  const own = callerHooks(c, c.get("caller"));
  if (own) options.hooks = [c.get("tenant").hooks, own];
  const tracer = c.get("tracer");
  // A tenant with code mode: its code tool runs programs with these options, within this caller's list;
  // a run reaching a call that waits for approval is held by its Runner until the call is decided.
  const codeMode = c.get("tenant").config.codeMode;
  const waits = codeMode && codeWaits(c, codeMode.tool);
  options.registry = withCodeTool(c.get("tenant"), c.env.LOADER, options, c.get("caller").tools, waits);
  if (tracer) {
    const caller = c.get("caller");
    tracer.attributes["toolgate.surface"] = surfaceOf(c);
    if (caller.keyName !== undefined) tracer.attributes["toolgate.key"] = caller.keyName;
    if (caller.user) tracer.attributes["enduser.id"] = caller.user.id;
    options.tracer = tracer;
  }
  return options;
}

/** The request's ctx.waitUntil; undefined where there is no execution context (app.request in tests). */
export function waitUntilOf(c: Context<AppEnv>): WaitUntil | undefined {
  try {
    const ctx = c.executionCtx;
    return (promise) => ctx.waitUntil(promise);
  } catch {
    return undefined;
  }
}

/** How this request's code runs wait for an approval: held by their Runner objects, as its caller's runs. */
function codeWaits(c: Context<AppEnv>, tool: string) {
  const user = storedUser(c.get("caller").user);
  return requestWaits(c.env, {
    tenant: c.get("tenant").name,
    tool,
    key: c.get("caller").keyName,
    ...(user ? { user } : {}),
    surface: surfaceOf(c),
    ...(c.env.TOOLGATE_CONFIG ? { config: c.env.TOOLGATE_CONFIG } : {}),
    ...(c.get("caller").rateLimits?.length ? { rateLimits: c.get("caller").rateLimits } : {}),
  });
}
