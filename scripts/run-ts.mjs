// Runs a TypeScript entry (bench, scripts) by bundling it with esbuild first: no loader, no tsx.
// Usage: node scripts/run-ts.mjs <file.ts> [args…]
import { pathToFileURL } from "node:url";
import { BENCH_DIR, ensureBenchPackage } from "./bench-deps.mjs";
import { bundleEntry, esbuildErrors, packageDir, useProjectNode, writeGeneratedModules } from "./ts-entry.mjs";

await useProjectNode();
const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error("usage: node scripts/run-ts.mjs <file.ts> [args…]");
  process.exit(2);
}
let outfile;
try {
  // Entries that import the Worker need the generated modules first; bench entries, the bench package.
  await writeGeneratedModules();
  if (packageDir(entry) === BENCH_DIR) ensureBenchPackage();
  outfile = await bundleEntry(entry);
} catch (error) {
  // esbuild has printed its errors (file and line) already.
  if (!esbuildErrors(error)) console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
process.argv = [process.argv[0], outfile, ...rest];
await import(pathToFileURL(outfile).href);
