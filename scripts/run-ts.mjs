// Runs a TypeScript entry (bench, scripts) by bundling it with esbuild first: no loader, no tsx.
import { build } from "esbuild";
import { mkdirSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error("usage: node scripts/run-ts.mjs <file.ts> [args…]");
  process.exit(2);
}
mkdirSync(".tmp", { recursive: true });
const outfile = resolve(".tmp", `${basename(entry).replace(/\.ts$/, "")}.mjs`);
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
