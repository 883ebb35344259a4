// What scripts/run-ts.mjs and scripts/build.mjs share: the project's Node, the generated modules
// every entry that imports the Worker needs, and bundling a TypeScript entry with esbuild (no loader, no tsx).
import { spawn } from "node:child_process";
import { once } from "node:events";
import { constants } from "node:os";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeConnectionsModule } from "./connections-module.mjs";
import { writeIdentityModule } from "./identity-module.mjs";
import { writeTelemetryModule } from "./telemetry-module.mjs";
import { writeJsonSchemaModule } from "./json-schema-module.mjs";
import { writeOAuthModule } from "./oauth-module.mjs";
import { writeSearchModule } from "./search-module.mjs";
import { writeToJsonSchemaModule } from "./to-json-schema-module.mjs";
import { writeConfigBlocksModule } from "./config-blocks-module.mjs";
import { writeCodeModeModule } from "./code-mode-module.mjs";
import { writeRemoteMcpModule } from "./remote-mcp-module.mjs";
import { writeEndpointsModule } from "./endpoints-module.mjs";
import { writeToolCatalog } from "./tools-catalog.mjs";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * wrangler and miniflare need Node 22. npm scripts run the project's own (the `node` devDependency);
 * a script started with the machine's older node runs itself again under the project's, and exits.
 */
export async function useProjectNode() {
  const projectNode = join(ROOT, "node_modules/node/bin/node");
  if (Number(process.versions.node.split(".")[0]) >= 22 || !existsSync(projectNode)) return;
  const child = spawn(projectNode, process.argv.slice(1), { stdio: "inherit" });
  // A signal sent to this process alone (a supervisor's kill by pid) reaches the Node 22 run too, so
  // nothing it started (wrangler's workerd) is left serving.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
  const [code, signal] = await once(child, "exit");
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
}

/**
 * The library modules (OAuth, JSON Schema, identity, search, telemetry, connections, the JSON Schema
 * converter, the configuration blocks' schemas, code mode, the remote MCP client) and the catalogue of
 * tools/: written before anything bundles the Worker. The catalogue last: it is the one a mistake in
 * tools/ stops, and the others are needed all the same.
 */
export async function writeGeneratedModules(root = ROOT) {
  await writeOAuthModule(root);
  await writeJsonSchemaModule(root);
  await writeIdentityModule(root);
  await writeSearchModule(root);
  await writeEndpointsModule(root);
  await writeTelemetryModule(root);
  await writeConnectionsModule(root);
  await writeToJsonSchemaModule(root);
  await writeConfigBlocksModule(root);
  await writeCodeModeModule(root);
  await writeRemoteMcpModule(root);
  writeToolCatalog(root);
}

/** The folder of the package an entry belongs to (bench/ has its own): its bundle resolves packages from there. */
export function packageDir(entry) {
  for (let dir = dirname(resolve(entry)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
  }
  return ROOT;
}

/**
 * Bundles a TypeScript entry for Node (packages stay imports) into a folder of this process's own
 * (the same entry may be bundled by several processes at once), removed when the process exits.
 * Returns the bundle's path. Rejects with esbuild's failure (its `errors` name file and line), which
 * esbuild also prints unless `logLevel` is "silent".
 */
export async function bundleEntry(entry, { logLevel = "warning" } = {}) {
  const { build } = await import("esbuild");
  const dir = resolve(packageDir(entry), ".tmp", `run-ts-${process.pid}`);
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
    logLevel,
  });
  return outfile;
}

/** esbuild's errors, one line each (file:line:column: text), or undefined for any other error. */
export function esbuildErrors(error) {
  if (!Array.isArray(error?.errors) || error.errors.length === 0) return undefined;
  return error.errors.map(({ location, text }) => ({
    text: location ? `${location.file}:${location.line}:${location.column}: ${text}` : text,
    file: location?.file,
  }));
}
