import type { Context } from "hono";
import { Hono } from "hono/tiny";
import type { AppEnv } from "../env";
import { callDurable } from "../durable/call";
import { ApiError } from "../errors";
import { shardCount, tenantLedger } from "../ledger/address";
import { currentOf, type ShardMap } from "../ledger/shard-map";
import { requireScope } from "../middleware/auth";

/** The map as the API shows it: the shard count new ids hash over, and every live version. */
function shown(map: ShardMap) {
  const current = currentOf(map);
  return {
    shards: current.shards,
    version: current.version,
    versions: map.versions.map(({ version, shards, since }) => ({ version, shards, since })),
  };
}

const holderOf = (c: Context<AppEnv>) => tenantLedger(c.env, c.var.tenant.name);

/**
 * The tenant's ledger shard map (admin): GET shows it; PUT {"shards": n} changes the shard count of
 * the live tenant (its shards are sealed, then the new version is published; earlier calls stay where
 * they are and are found there); POST /drop ends the older versions whose records are all gone.
 */
export const ledgerShards = new Hono<AppEnv>()
  .use(requireScope("admin"))
  .get("/", async (c) => c.json(shown(await holderOf(c).map())))
  .put("/", async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as { shards?: unknown } | undefined;
    const shards = typeof body?.shards === "number" ? body.shards : Number.NaN;
    const ledger = holderOf(c);
    const outcome = await callDurable(
      ledger.holder,
      (holder) => holder.changeShards(ledger.tenant, shards, shardCount(c.env)),
      { tries: 1 },
    );
    if (!outcome.ok) throw new ApiError(400, "invalid_shards", outcome.error);
    // This isolate knows it at once; the others within MAP_TTL_MS (or at their next claim, which
    // a sealed shard refuses).
    ledger.adopt(outcome.map);
    return c.json(shown(outcome.map));
  })
  .post("/drop", async (c) => {
    const ledger = holderOf(c);
    const outcome = await callDurable(ledger.holder, (holder) =>
      holder.dropShardVersions(ledger.tenant, shardCount(c.env)),
    );
    const { blocked } = outcome;
    ledger.adopt(outcome.map);
    if (blocked && outcome.dropped.length === 0) {
      const message =
        `Version ${blocked.version} of the shard map still holds ${blocked.stranded} records ` +
        `that no newer version places; they leave with retention (LEDGER_RETENTION_DAYS), then it can be dropped.`;
      throw new ApiError(409, "records_remain", message);
    }
    return c.json({ dropped: outcome.dropped, ...shown(outcome.map), ...(blocked ? { blocked } : {}) });
  });
