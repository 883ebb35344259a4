/**
 * wrangler's [build] command (wrangler.toml): every `wrangler dev` and `wrangler deploy` runs it before
 * bundling, through scripts/run-ts.mjs, which has just written the catalogue of tools/. Loads every tool
 * (each file must export the tool it is named after), then builds the demo tenant and every
 * tenants/*.json with the checks the Worker runs on its first request, so an unknown tool or tag, or a
 * secret a tool needs that the tenant does not map, stops the build with the tenant's error instead of
 * answering config_invalid at the first call.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { TENANTS_DIR } from "./tenant-files";

/** --tenants <dir>: another folder of tenant configurations (tests). */
const dir = parseArgs({ options: { tenants: { type: "string", default: TENANTS_DIR } } }).values.tenants!;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function fail(message: string): never {
  console.error(`tools-check: ${message}`);
  process.exit(1);
}

// Imported here, not at the top: a tool that throws while it is defined is reported as a message.
const loaded = await Promise.all([import("../worker/catalog"), import("../worker/demo/tenant"), import("../worker/tenant")]).catch((error: unknown) =>
  fail(messageOf(error)),
);
const [{ CATALOG }, { DEMO_CONFIG }, { checkTenant }] = loaded;

const tenants: [source: string, config: () => unknown][] = [["worker/demo/tenant.ts", () => DEMO_CONFIG]];
for (const file of readdirSync(dir).filter((name) => name.endsWith(".json")).sort()) {
  const path = join(dir, file);
  tenants.push([path, () => readFileSync(path, "utf8")]);
}
const problems: string[] = [];
for (const [source, config] of tenants) {
  try {
    // Every tool built: the Worker builds declared tools on first use, so this is where a bad one stops a deploy.
    checkTenant(config(), source);
  } catch (error) {
    problems.push(messageOf(error));
  }
}
if (problems.length > 0) fail(problems.join("\n"));
console.log(`tools: ${[...CATALOG.keys()].join(", ")}; tenants checked: ${tenants.map(([source]) => source).join(", ")}`);
