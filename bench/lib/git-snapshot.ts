import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { READY_PATH } from "./wrangler-dev";

/** The scripts of package.json's postinstall, which write the git-ignored sources a build needs. */
const GENERATORS = [
  "tools-catalog.mjs",
  "oauth-module.mjs",
  "json-schema-module.mjs",
  "identity-module.mjs",
  "search-module.mjs",
  "endpoints-module.mjs",
  "telemetry-module.mjs",
  "connections-module.mjs",
  "to-json-schema-module.mjs",
  "config-blocks-module.mjs",
  "code-mode-module.mjs",
  "remote-mcp-module.mjs",
];

/**
 * The sources of a git ref under `dir`/app, laid out as snapshot() lays out the working tree (its own
 * wrangler.toml and bindings), for A/B runs against another build in the same run.
 */
export function snapshotOf(ref: string, dir: string): string {
  const app = resolve(dir, "app");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(resolve(app, "dist/web"), { recursive: true });
  // Only the paths the ref has: older refs predate tools/ (git archive refuses a missing path).
  const wanted = [
    "src",
    "worker",
    "tools",
    "tenants",
    "scripts",
    "package.json",
    "wrangler.toml",
    "tsconfig.json",
    "tsconfig.base.json",
  ];
  const present = execFileSync("git", ["ls-tree", "--name-only", ref], { encoding: "utf8" }).split("\n");
  const tar = execFileSync("git", ["archive", ref, ...wanted.filter((path) => present.includes(path))], {
    maxBuffer: 1 << 28,
  });
  execFileSync("tar", ["-x", "-C", app], { input: tar });
  // The catalogue of tools/ and the lazily loaded libraries' modules are git-ignored: written as the
  // ref's own install writes them, where the ref has their scripts (a generated config has no build command).
  for (const script of GENERATORS) {
    const path = resolve(app, "scripts", script);
    if (existsSync(path)) execFileSync(process.execPath, [path], { cwd: app });
  }
  writeFileSync(resolve(app, "dist/web", READY_PATH.slice(1)), "ready\n");
  symlinkSync(resolve("node_modules"), resolve(app, "node_modules"));
  return app;
}
