// The packages people install, packed as npm publishes them: `toolgate` (packages/toolgate: the core,
// the client, the Worker kit and the SDK adapters, built from src/ and worker/ by tsdown, with the
// lazily loaded library modules and the console's static files) and `create-toolgate` (the starter).
// Each tarball is checked with publint and @arethetypeswrong/cli. The build tools are the toolgate
// package's devDependencies (its own lock file), installed here when missing, so `npm install` of the
// repository does not bring them. Usage: node scripts/pack.mjs [--out <dir>] [--no-check]
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildConsole } from "./console-build.mjs";
import { CONNECTIONS_MODULE } from "./connections-module.mjs";
import { IDENTITY_MODULE } from "./identity-module.mjs";
import { TELEMETRY_MODULE } from "./telemetry-module.mjs";
import { JSON_SCHEMA_MODULE } from "./json-schema-module.mjs";
import { OAUTH_MODULE } from "./oauth-module.mjs";
import { CONFIG_BLOCKS_MODULE } from "./config-blocks-module.mjs";
import { REMOTE_MCP_MODULE } from "./remote-mcp-module.mjs";
import { SEARCH_MODULE } from "./search-module.mjs";
import { TO_JSON_SCHEMA_MODULE } from "./to-json-schema-module.mjs";
import { CODE_MODE_MODULE } from "./code-mode-module.mjs";
import { ENDPOINTS_MODULE } from "./endpoints-module.mjs";
import { ROOT, useProjectNode, writeGeneratedModules } from "./ts-entry.mjs";

export const PACKAGE_DIR = join(ROOT, "packages/toolgate");
export const CREATE_DIR = join(ROOT, "packages/create-toolgate");
/** The library modules the kit imports on first use, at the paths its bundle names (beside dist/'s chunks). */
const LAZY_MODULES = [
  OAUTH_MODULE,
  JSON_SCHEMA_MODULE,
  IDENTITY_MODULE,
  SEARCH_MODULE,
  ENDPOINTS_MODULE,
  TELEMETRY_MODULE,
  CONNECTIONS_MODULE,
  TO_JSON_SCHEMA_MODULE,
  CONFIG_BLOCKS_MODULE,
  CODE_MODE_MODULE,
  REMOTE_MCP_MODULE,
];

/** Runs a command, its output shown; throws naming it when it fails. */
function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: "inherit" });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (${result.error?.message ?? result.status})`);
  }
}

/** npm ci of the toolgate package's build tools, when missing or older than its lock file. */
export function ensurePackageTools() {
  const installed = join(PACKAGE_DIR, "node_modules/.package-lock.json");
  const lock = join(PACKAGE_DIR, "package-lock.json");
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs) return;
  run("npm", ["ci", "--no-audit", "--no-fund"], PACKAGE_DIR);
}

/**
 * dist/ mirrors the sources (tsdown's unbundle mode, so apps' bundlers drop every module they do not
 * use): a library module goes beside each dist/ file that imports it by its relative specifier.
 */
function copyBesideImporters(module) {
  const specifier = `./${module.split("/").slice(-2).join("/")}`;
  const importers = readdirSync(join(PACKAGE_DIR, "dist"), { recursive: true, encoding: "utf8" }).filter(
    (file) => file.endsWith(".js") && readFileSync(join(PACKAGE_DIR, "dist", file), "utf8").includes(`"${specifier}"`),
  );
  if (importers.length === 0) throw new Error(`no module of dist/ imports ${specifier}`);
  for (const importer of importers) {
    const to = join(PACKAGE_DIR, "dist", dirname(importer), specifier);
    mkdirSync(dirname(to), { recursive: true });
    cpSync(join(ROOT, module), to);
  }
}

/** Builds packages/toolgate: dist/ (tsdown), the library modules beside it, console/, CHANGELOG.md. */
export async function buildPackage() {
  ensurePackageTools();
  await writeGeneratedModules(ROOT);
  await buildConsole(ROOT);
  const tsdown = join(PACKAGE_DIR, "node_modules/tsdown/dist/run.mjs");
  run(process.execPath, [tsdown, "--log-level", "warn"], PACKAGE_DIR);
  for (const module of LAZY_MODULES) copyBesideImporters(module);
  rmSync(join(PACKAGE_DIR, "console"), { recursive: true, force: true });
  cpSync(join(ROOT, "dist/web"), join(PACKAGE_DIR, "console"), { recursive: true });
  cpSync(join(ROOT, "CHANGELOG.md"), join(PACKAGE_DIR, "CHANGELOG.md"));
}

/** `npm pack` of a package folder into `out`; answers the tarball's path. */
export function pack(dir, out) {
  const result = spawnSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: dir, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`npm pack in ${dir} failed: ${result.stderr}`);
  const [{ filename }] = JSON.parse(result.stdout);
  return join(out, filename);
}

const tool = (path) => join(PACKAGE_DIR, "node_modules", path);

/** publint on a tarball: its manifest, exports and files as npm would publish them. */
export function publint(tarball) {
  run(process.execPath, [tool("publint/src/cli.js"), "--strict", tarball], PACKAGE_DIR);
}

/** publint and @arethetypeswrong/cli on a typed tarball (ESM only: no CommonJS resolution is promised). */
export function checkTarball(tarball) {
  publint(tarball);
  run(
    process.execPath,
    [tool("@arethetypeswrong/cli/dist/index.js"), "--profile", "esm-only", "--format", "table", tarball],
    PACKAGE_DIR,
  );
}

/** Builds and packs both packages into `out`; answers their tarballs. */
export async function packAll(out, { check = true } = {}) {
  mkdirSync(out, { recursive: true });
  await buildPackage();
  const toolgate = pack(PACKAGE_DIR, out);
  const create = pack(CREATE_DIR, out);
  if (check) {
    checkTarball(toolgate);
    publint(create); // a command, no types: @arethetypeswrong/cli has nothing to check
  }
  return { toolgate, create };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await useProjectNode();
  const { values } = parseArgs({ options: { out: { type: "string" }, "no-check": { type: "boolean" } } });
  try {
    const out = resolve(values.out ?? join(ROOT, ".tmp/packages"));
    const { toolgate, create } = await packAll(out, { check: !values["no-check"] });
    const size = (path) => `${(statSync(path).size / 1024).toFixed(1)} KB`;
    console.log(`pack: ${toolgate} (${size(toolgate)}), ${create} (${size(create)})`);
    const version = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")).version;
    console.log(`pack: toolgate ${version}`);
  } catch (error) {
    console.error(`pack: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
