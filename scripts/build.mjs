// wrangler's [build] command (wrangler.toml): every `wrangler dev`, `wrangler deploy` and dry run runs
// it before bundling, and `wrangler dev` again when tools/ or tenants/ change. It builds everything
// the bundle and the deploy need: the console (dist/web, when its sources changed), the generated
// modules (the catalogue of tools/, the OAuth and JSON Schema libraries), then checks the tools and
// tenants (scripts/tools-check.ts) and writes the tenants' precomputed listings.
//
// A problem fails the build, except under `wrangler dev` (wrangler sets WRANGLER_COMMAND=dev): there a
// failed build holds every request until the next good one (wrangler pauses its proxy when a build
// starts and resumes it only when a bundle is ready), so the dev server would hang. Instead the build
// writes a catalogue without tools that carries the failure (worker/tenant/catalog.generated.ts), and the
// Worker answers every request 503 build_failed naming the problem and its file, until a build passes.
// Usage: node scripts/build.mjs [--tenants <dir>]
import { parseArgs } from "node:util";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeBuildStatus } from "./build-status.mjs";
import { buildConsole } from "./console-build.mjs";
import { writeFailedCatalog } from "./tools-catalog.mjs";
import { bundleEntry, esbuildErrors, ROOT, useProjectNode, writeGeneratedModules } from "./ts-entry.mjs";

await useProjectNode();
process.chdir(ROOT);
/** --tenants <dir>: another folder of tenant configurations (tests). */
const { tenants } = parseArgs({ options: { tenants: { type: "string" } } }).values;
const underDev = process.env.WRANGLER_COMMAND === "dev";

/** The problems as one failure: every message, and the first file named. */
const failureOf = (problems) => {
  const file = problems.find((problem) => problem.file)?.file;
  return { message: problems.map((problem) => problem.message).join("\n"), ...(file ? { file } : {}) };
};

const messageOf = (error) => (error instanceof Error ? error.message : String(error));

/** Runs the build's steps; resolves to its problems (none when it passed). */
async function build() {
  try {
    await buildConsole(ROOT);
  } catch (error) {
    return [{ message: `the console (web/) did not build: ${messageOf(error)}` }];
  }
  let check;
  try {
    await writeGeneratedModules(ROOT);
    // Stack traces name the sources (a tool that throws while it is defined names its file).
    process.setSourceMapsEnabled(true);
    ({ checkTools: check } = await import(
      pathToFileURL(await bundleEntry(join(ROOT, "scripts/tools-check.ts"), { logLevel: "silent" })).href
    ));
  } catch (error) {
    // A file of tools/ that cannot be a tool's name, or one esbuild cannot bundle (each error has its file and line).
    const errors = esbuildErrors(error);
    if (errors) return errors.map(({ text, file }) => ({ message: text, ...(file ? { file } : {}) }));
    return [{ message: messageOf(error), ...(typeof error?.file === "string" ? { file: error.file } : {}) }];
  }
  const result = await check(tenants);
  if (result.ok) {
    console.log(result.summary);
    return [];
  }
  return result.problems;
}

const problems = await build();
// Under dev, for `npm run dev` to print (scripts/dev.ts): wrangler shows this command's output only at
// its log level "log", which npm run dev turns down to keep one line per call.
if (underDev) writeBuildStatus(ROOT, problems.length > 0 ? { ok: false, ...failureOf(problems) } : { ok: true });
if (problems.length > 0) {
  const failure = failureOf(problems);
  console.error(`build: ${failure.message}`);
  if (!underDev) process.exit(1);
  writeFailedCatalog(ROOT, failure);
  const where = failure.file ? ` (${failure.file})` : "";
  console.error(`build: the dev server answers every request 503 build_failed${where} until this is fixed.`);
}
