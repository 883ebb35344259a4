import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { NODE } from "./wrangler-dev";

/**
 * A tenant bundled into a snapshot's Worker, as a deploy bundles one (docs/tenants.md, Deploying a tenant):
 * tenants/<name>.json and its entry module tenants/<name>.ts, then the snapshot's own build command
 * (its scripts/tools-check.ts), which checks every tenant and, in builds that precompute listings,
 * writes tenants/<name>.listings.generated.txt. Returns the entry module, the Worker's main.
 */
export function bundleTenant(app: string, name: string, config: unknown): string {
  writeFileSync(resolve(app, "tenants", `${name}.json`), JSON.stringify(config, null, 2));
  // The entry module as that build's `tenant:add` writes it: builds before precomputed listings register the
  // configuration alone, and builds before worker/tenant/ keep its modules at worker/'s root.
  const folder = existsSync(resolve(app, "worker/tenant/bundled-config.ts"));
  const bundledConfig = folder ? "../worker/tenant/bundled-config" : "../worker/bundled-config";
  const precomputed = folder ? "worker/tenant/listings/precomputed.ts" : "worker/listings-precomputed.ts";
  const listings = existsSync(resolve(app, precomputed));
  const register = listings
    ? `useBundledConfig(config, "tenants/${name}.json", () => import("./${name}.listings.generated.txt"));`
    : `useBundledConfig(config, "tenants/${name}.json");`;
  const entry = resolve(app, "tenants", `${name}.ts`);
  const source = [
    `import { useBundledConfig } from "${bundledConfig}";`,
    'import app from "../worker/index";',
    `import config from "./${name}.json";`,
    "",
    register,
    "",
    'export * from "../worker/index";',
    "export default app;",
    "",
  ];
  writeFileSync(entry, source.join("\n"));
  execFileSync(NODE, ["scripts/run-ts.mjs", "scripts/tools-check.ts"], {
    cwd: app,
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (listings && !existsSync(resolve(app, "tenants", `${name}.listings.generated.txt`)))
    throw new Error(`${app}: the build wrote no listings for ${name}`);
  return entry;
}
