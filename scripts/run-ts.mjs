// Runs a TypeScript entry (bench, scripts) by bundling it with esbuild first: no loader, no tsx.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { basename, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

// wrangler and miniflare need Node 22. npm scripts run the project's own (the `node` devDependency);
// started with the machine's older node, this runs itself again under the project's.
const PROJECT_NODE = fileURLToPath(new URL("../node_modules/node/bin/node", import.meta.url));
if (Number(process.versions.node.split(".")[0]) < 22 && existsSync(PROJECT_NODE)) {
  const { status } = spawnSync(PROJECT_NODE, process.argv.slice(1), { stdio: "inherit" });
  process.exit(status ?? 1);
}

const { build } = await import("esbuild");
// Entries that import the Worker need the catalogue of tools/ and the library modules (OAuth, JSON Schema) written first.
const { writeToolCatalog } = await import("./tools-catalog.mjs");
const { writeOAuthModule } = await import("./oauth-module.mjs");
const { writeJsonSchemaModule } = await import("./json-schema-module.mjs");
try {
  writeToolCatalog(fileURLToPath(new URL("..", import.meta.url)));
  await writeOAuthModule(fileURLToPath(new URL("..", import.meta.url)));
  await writeJsonSchemaModule(fileURLToPath(new URL("..", import.meta.url)));
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error("usage: node scripts/run-ts.mjs <file.ts> [args…]");
  process.exit(2);
}
// One folder per process: the same entry may run several times at once (wrangler's [build] command
// runs scripts/tools-check.ts for every dev server a test starts), and a shared file could be read half-written.
const dir = resolve(".tmp", `run-ts-${process.pid}`);
mkdirSync(dir, { recursive: true });
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
const outfile = resolve(dir, `${basename(entry).replace(/\.ts$/, "")}.mjs`);
await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  packages: "external",
  sourcemap: "inline",
  logLevel: "warning",
});
process.argv = [process.argv[0], outfile, ...rest];
await import(pathToFileURL(outfile).href);
