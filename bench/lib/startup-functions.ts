/**
 * Which functions of the Worker's sources run while its module is evaluated, i.e. at startup: the
 * entry bundled as wrangler bundles it (not minified), imported by a fresh Node process under V8's
 * precise coverage (NODE_V8_COVERAGE), each function called at least once named with its source file
 * (the "// path" line esbuild writes before each module's code). Unlike a timing it does not depend
 * on the machine's load: what it lists is what startup runs (and compiles at its first call).
 */
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { unstable_readConfig } from "wrangler";

export interface StartupFunction {
  /** Repository-relative path of its source (node_modules/… for libraries). */
  source: string;
  name: string;
  /** Length of its code in the bundle (not minified). */
  bytes: number;
}

/** workerd's own module, reduced to the classes the Worker extends. */
const WORKERS_STUB = `export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }
export class WorkerEntrypoint extends DurableObject {}
export class RpcTarget {}
`;

interface Coverage {
  result: {
    url: string;
    functions: { functionName: string; ranges: { startOffset: number; endOffset: number; count: number }[] }[];
  }[];
}

export async function startupFunctions(entry = "worker/index.ts"): Promise<StartupFunction[]> {
  const dir = resolve(".tmp", `startup-functions-${process.pid}-${crypto.randomUUID().slice(0, 8)}`);
  mkdirSync(dir, { recursive: true });
  try {
    writeFileSync(join(dir, "workers.mjs"), WORKERS_STUB);
    const bundle = join(dir, "index.mjs");
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: "neutral",
      conditions: ["workerd", "worker", "browser"],
      mainFields: ["module", "main"],
      // wrangler.toml's [alias] (the JSON Schema validator's stand-in), as wrangler applies it.
      alias: { ...wranglerAliases(), "cloudflare:workers": join(dir, "workers.mjs") },
      // The library modules stay apart, as wrangler uploads them (imported on first use only).
      external: ["./oauth/provider.generated.mjs", "./json-schema/library.generated.mjs"],
      format: "esm",
      outfile: bundle,
      logLevel: "error",
    });
    const coverage = join(dir, "coverage");
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", `await import(${JSON.stringify(bundle)});`], {
      env: { ...process.env, NODE_V8_COVERAGE: coverage },
      encoding: "utf8",
    });
    if (run.status !== 0) throw new Error(`importing the bundle failed: ${run.stderr}`);
    const scripts = readdirSync(coverage).flatMap(
      (file) => (JSON.parse(readFileSync(join(coverage, file), "utf8")) as Coverage).result,
    );
    const script = scripts.find((s) => s.url.endsWith("/index.mjs") && s.url.includes(dir));
    if (!script) throw new Error("no coverage of the bundle");
    return namedBySource(script.functions, readFileSync(bundle, "utf8"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function wranglerAliases(): Record<string, string> {
  const config = resolve("wrangler.toml");
  const aliases = (unstable_readConfig({ config }).alias ?? {}) as Record<string, string>;
  return Object.fromEntries(
    Object.entries(aliases).map(([name, path]) => [name, path.startsWith(".") ? resolve(dirname(config), path) : path]),
  );
}

function namedBySource(functions: Coverage["result"][number]["functions"], code: string): StartupFunction[] {
  // esbuild's module lines are paths ("// src/tool.ts"), not annotations ("// @__NO_SIDE_EFFECTS__").
  const modules = [...code.matchAll(/^\/\/ ((?:[\w.@-]+\/)+[\w.@-]+\.[cm]?[jt]sx?)$/gm)].map((match) => ({
    offset: match.index,
    source: match[1]!,
  }));
  const sourceAt = (offset: number) => {
    let found = "(esbuild's helpers)";
    for (const module of modules) {
      if (module.offset > offset) break;
      found = module.source;
    }
    return found;
  };
  const ran: StartupFunction[] = [];
  for (const fn of functions) {
    const whole = fn.ranges[0];
    // The module's own top level (offset 0) always runs; only the functions it calls are listed.
    if (!whole || whole.count === 0 || whole.startOffset === 0) continue;
    ran.push({
      source: sourceAt(whole.startOffset),
      name: fn.functionName || "(anonymous)",
      bytes: whole.endOffset - whole.startOffset,
    });
  }
  return ran;
}
