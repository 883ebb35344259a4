import type { Context } from "hono";
import type { BatchOptions } from "../src/options";
import type { AppEnv } from "./env";
import { createGateLimiter } from "./gate-limiter";
import { createLedgerJournal } from "./ledger-journal";
import { shardCount } from "./ledger-shards";
import { resolveSecrets } from "./tenant";

/**
 * Everything the core pipeline needs for this request: the tenant's registry, secrets and rules,
 * and the request's cancellation. Gates (limiter) and the ledger (journal) plug in here.
 */
export function executionOptions(c: Context<AppEnv>): BatchOptions {
  const tenant = c.var.tenant;
  return {
    registry: tenant.registry,
    tenant: tenant.name,
    secrets: resolveSecrets(tenant.config, c.env),
    // Every tool's ctx.fetch: only to the adapters' origins and egress.allowHosts, re-checked on redirects.
    fetch: tenant.adapters.fetch,
    hooks: tenant.hooks,
    limiter: createGateLimiter(c.env.GATES, { tenant: tenant.name, waitUntil: waitUntilOf(c) }),
    // Records belong to the key making the calls (its name): a call-scope key reads only its own.
    journal: createLedgerJournal({
      ledger: c.env.LEDGER,
      tenant: tenant.name,
      shards: shardCount(c.env),
      key: c.var.caller.keyName,
      waitUntil: waitUntilOf(c),
    }),
    signal: c.req.raw.signal,
  };
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
