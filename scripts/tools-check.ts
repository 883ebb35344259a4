/**
 * wrangler's [build] command (wrangler.toml): every `wrangler dev` and `wrangler deploy` runs it before
 * bundling, through scripts/run-ts.mjs, which has just written the catalogue of tools/. Loads every tool
 * (each file must export the tool it is named after), then builds the demo tenant and every
 * tenants/*.json with the checks the Worker runs on its first request, so an unknown tool or tag, or a
 * secret a tool needs that the tenant does not map, stops the build with the tenant's error instead of
 * answering config_invalid at the first call. Then writes each tenants/<name>.json's listings,
 * precomputed (tenants/<name>.listings.generated.txt, see worker/listings-precomputed.ts), which its
 * Worker serves instead of building them when their key still matches.
 */
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { listingsFile, TENANTS_DIR } from "./tenant-files";

/** --tenants <dir>: another folder of tenant configurations (tests). */
const dir = parseArgs({ options: { tenants: { type: "string", default: TENANTS_DIR } } }).values.tenants!;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function fail(message: string): never {
  console.error(`tools-check: ${message}`);
  process.exit(1);
}

// Imported here, not at the top: a tool that throws while it is defined is reported as a message.
const loaded = await Promise.all([
  import("../worker/catalog"),
  import("../worker/demo/tenant"),
  import("../worker/tenant"),
  import("../worker/listings-key"),
  import("../worker/listings-precompute"),
]).catch((error: unknown) => fail(messageOf(error)));
const [{ CATALOG }, { DEMO_CONFIG }, { checkTenant }, { listingsKey }, { precomputeListings }] = loaded;

/** Where a bundled tenant's precomputed listings go (none for the demo, which is not bundled). */
type Listings = string | undefined;
const tenants: [source: string, config: () => unknown, listings: Listings][] = [["worker/demo/tenant.ts", () => DEMO_CONFIG, undefined]];
for (const file of readdirSync(dir).filter((name) => name.endsWith(".json")).sort()) {
  const path = join(dir, file);
  tenants.push([path, () => readFileSync(path, "utf8"), join(dir, listingsFile(file.slice(0, -".json".length)))]);
}

/** Written only when the text changes (wrangler dev watches tenants/), through a rename (builds may run at once). */
function writeIfChanged(path: string, text: string): void {
  if (existsSync(path) && readFileSync(path, "utf8") === text) return;
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

const problems: string[] = [];
for (const [source, config, listings] of tenants) {
  try {
    // Every tool built: the Worker builds declared tools on first use, so this is where a bad one stops a deploy.
    const text = config();
    const tenant = checkTenant(text, source);
    // Keyed as the Worker keys it: the configuration as its bundle imports it (parsed JSON).
    if (listings) writeIfChanged(listings, precomputeListings(tenant, await listingsKey(JSON.parse(text as string), tenant, CATALOG)));
  } catch (error) {
    problems.push(messageOf(error));
  }
}
if (problems.length > 0) fail(problems.join("\n"));
console.log(`tools: ${[...CATALOG.keys()].join(", ")}; tenants checked: ${tenants.map(([source]) => source).join(", ")}`);
