/**
 * The first listing of a bundled 1,000-tool tenant (bench/lib/tenant-growth.ts) in a fresh Node process,
 * timed by process CPU: the tenant's build (what every first request pays, a call's too), then the first
 * `GET /v1/tools/openai` answer and the first MCP tools/list page (2026-07-28), either built (every tool
 * built and converted) or served from the precomputed listings the build writes (loaded, key checked,
 * sliced or joined). Each variant in fresh processes, alternating round by round; medians.
 * Run: node scripts/run-ts.mjs bench/listing-first-node.ts   (RUNS=9)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { mcp, openai } from "../src/formats";
import { CATALOG } from "../worker/tenant/catalog";
import { toolListing, toolListingJson } from "../worker/tenant/listings/listing";
import { listingsKey } from "../worker/tenant/listings/key";
import { precomputeListings } from "../worker/tenant/listings/precompute";
import { precomputedMcp, preparePrecomputed } from "../worker/tenant/listings/precomputed";
import { checkTenant, loadTenant } from "../worker/tenant/tenant";
import { table } from "./harness";
import { median } from "./lib/load";
import { httpToolsConfig } from "./lib/tenant-growth";

const RUNS = Number(process.env.RUNS ?? 9);
const dir = resolve(".tmp/bench-listing-first");
const CONFIG = resolve(dir, "growth1000.json");
const LISTINGS = resolve(dir, "growth1000.listings.generated.txt");
const VARIANTS = ["openai, built", "openai, precomputed", "MCP page, built", "MCP page, precomputed"] as const;

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** One variant in this (fresh) process: prints { build, listing } CPU ms. */
async function child(variant: string): Promise<void> {
  const config = JSON.parse(readFileSync(CONFIG, "utf8")) as unknown;
  const text = readFileSync(LISTINGS, "utf8");
  const precomputed = variant.endsWith("precomputed");
  const t0 = cpuMs();
  const tenant = loadTenant(
    {},
    {
      config,
      source: "tenants/growth1000.json",
      ...(precomputed ? { listings: async () => ({ default: text }) } : {}),
    },
    CATALOG,
  );
  const t1 = cpuMs();
  await preparePrecomputed(tenant);
  // tools/list's first page as worker/mcp/tools.ts cuts it (that module needs Workers types; its page is this one).
  const page = () => precomputedMcp(tenant)?.page(0, 100, true) ?? toolListing(tenant, mcp).tools.slice(0, 100);
  const answer = variant.startsWith("openai") ? toolListingJson(tenant, openai) : JSON.stringify(page());
  const t2 = cpuMs();
  if (answer.length < 10_000) throw new Error(`${variant}: a short answer`);
  console.log(JSON.stringify({ build: t1 - t0, listing: t2 - t1 }));
}

async function parent(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const config = httpToolsConfig(1000);
  writeFileSync(CONFIG, JSON.stringify(config));
  // What scripts/tools-check.ts writes for a bundled tenant, for this build.
  const tenant = checkTenant(JSON.parse(JSON.stringify(config)), "tenants/growth1000.json", CATALOG);
  writeFileSync(LISTINGS, precomputeListings(tenant, await listingsKey(config, tenant, CATALOG)));
  const results = new Map<string, { build: number[]; listing: number[] }>(
    VARIANTS.map((v) => [v, { build: [], listing: [] }]),
  );
  const load = loadavg()[0]!;
  for (let run = 0; run < RUNS; run++) {
    for (const variant of run % 2 ? [...VARIANTS].reverse() : VARIANTS) {
      const done = spawnSync(process.execPath, [process.argv[1]!, variant], { encoding: "utf8" });
      if (done.status !== 0) throw new Error(`${variant}: ${done.stderr}`);
      const { build, listing } = JSON.parse(done.stdout.trim().split("\n").at(-1)!) as {
        build: number;
        listing: number;
      };
      results.get(variant)!.build.push(build);
      results.get(variant)!.listing.push(listing);
    }
  }
  const rows = VARIANTS.map((variant) => {
    const { build, listing } = results.get(variant)!;
    return {
      variant,
      "tenant build CPU ms": median(build).toFixed(1),
      "first listing CPU ms": median(listing).toFixed(1),
      "each listing ms": listing.map((ms) => ms.toFixed(1)).join(", "),
    };
  });
  console.log(table(rows));
  console.log(
    `\n${RUNS} fresh processes per variant, alternating (every other round reversed); load average ${load.toFixed(1)} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
  );
}

const variant = process.argv[2];
await (variant ? child(variant) : parent());
