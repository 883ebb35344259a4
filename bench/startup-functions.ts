/**
 * The functions the Worker's startup runs, by source file (bench/lib/startup-functions.ts): where
 * to look for work that could wait for its first use.
 *   node scripts/run-ts.mjs bench/startup-functions.ts [entry] [--list=<part of a path>]
 */
import { startupFunctions } from "./lib/startup-functions";

const args = process.argv.slice(2);
const list = args.find((a) => a.startsWith("--list="))?.slice(7);
const entry = args.find((a) => !a.startsWith("--")) ?? "worker/index.ts";
const ran = await startupFunctions(entry);
const files = new Map<string, { count: number; bytes: number }>();
for (const fn of ran) {
  const file = files.get(fn.source) ?? { count: 0, bytes: 0 };
  file.count++;
  file.bytes += fn.bytes;
  files.set(fn.source, file);
}
console.log(
  `${entry}: ${ran.length} functions run at startup, ${ran.reduce((sum, fn) => sum + fn.bytes, 0)} bytes of code (not minified)`,
);
console.log("functions | bytes | source");
for (const [source, { count, bytes }] of [...files].sort((a, b) => b[1].bytes - a[1].bytes))
  console.log(`${count} | ${bytes} | ${source}`);
if (list !== undefined)
  for (const fn of ran.filter((f) => f.source.includes(list)))
    console.log(`${fn.source} ${fn.name} (${fn.bytes} bytes)`);
