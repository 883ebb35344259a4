import type { Context } from "hono";
import type { BatchOptions } from "../src/options";
import { callerHooks } from "./caller-hooks";
import type { AppEnv } from "./env";
import { tenantGates } from "./gates/address";
import { createGateLimiter } from "./gates/limiter";
import { tenantLedger } from "./ledger/address";
import { createLedgerJournal } from "./ledger/journal";
import { resolveSecrets } from "./tenant";

/** Which run the options are for: a request's own calls, or an approved call run for the admin's decision. */
export interface ExecutionRun {
  /** The owner token the decision handed out: the journal finishes the call's record as its owner. */
  approvedOwner?: string;
}

/**
 * Everything the core pipeline needs for this request: the tenant's registry, secrets and rules,
 * and the request's cancellation. Gates (limiter) and the ledger (journal) plug in here.
 */
export function executionOptions(c: Context<AppEnv>, run: ExecutionRun = {}): BatchOptions {
  const tenant = c.var.tenant;
  const waitUntil = waitUntilOf(c);
  const ledger = tenantLedger(c.env, tenant.name);
  const options: BatchOptions = {
    registry: tenant.registry,
    tenant: tenant.name,
    secrets: resolveSecrets(tenant.config, c.env),
    // Every tool's ctx.fetch: only to the adapters' origins and egress.allowHosts, re-checked on redirects.
    fetch: tenant.adapters.fetch,
    hooks: tenant.hooks,
    limiter: createGateLimiter(tenantGates(c.env, tenant.name), { waitUntil }),
  };
  if (run.approvedOwner !== undefined) {
    // Run after the admin's response (under waitUntil): the request's signal is not the call's, and the
    // record stays its caller's, finished with the owner token rather than under the approver's key.
    return { ...options, approved: true, journal: createLedgerJournal({ ledger, owner: run.approvedOwner }) };
  }
  // Records belong to the key (or OAuth grant) making the calls: a call-scope caller reads only its own.
  const own = callerHooks(c, c.var.caller);
  if (own) options.hooks = [tenant.hooks, own];
  return { ...options, journal: createLedgerJournal({ ledger, key: c.var.caller.keyName, waitUntil }), signal: c.req.raw.signal };
}

/** The request's ctx.waitUntil; undefined where there is no execution context (app.request in tests). */
export function waitUntilOf(c: Context<AppEnv>): ((promise: Promise<unknown>) => void) | undefined {
  try {
    const ctx = c.executionCtx;
    return (promise) => ctx.waitUntil(promise);
  } catch {
    return undefined;
  }
}
