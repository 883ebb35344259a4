// npm test: every suite, one after another, whatever the ones before did, each one's result in a
// summary at the end, and a non-zero exit when any failed. The console's browser tests need Debian's
// Chromium (never a downloaded browser): without it they are skipped with a clear line locally; in CI
// (CI set, which installs it) a missing Chromium is a failure.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const node = process.execPath;
const vitest = "node_modules/vitest/vitest.mjs";
const chromium = process.env.TOOLGATE_CHROMIUM ?? "/usr/bin/chromium";

/** Why the browser suite cannot run here, if it cannot. */
function noBrowser() {
  return existsSync(chromium) ? undefined : `no Chromium at ${chromium} (install it with: apt-get install -y chromium)`;
}

/** The suites of `npm test`, in order: `skip` says why one cannot run here (a failure when `required`). */
export const SUITES = [
  { name: "console build", command: [node, "scripts/console-build.mjs", "--force"] },
  { name: "typecheck", command: ["npm", "run", "--silent", "typecheck"] },
  { name: "vitest (core, worker)", command: [node, vitest, "run"] },
  {
    name: "console e2e (Chromium)",
    command: [node, vitest, "run", "--config", "vitest.e2e.config.ts"],
    skip: noBrowser,
    required: () => Boolean(process.env.CI),
  },
];

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Runs each suite (its output shown as it comes), then prints the summary. Returns each suite's
 * outcome: "passed", "failed" (with its exit code or signal) or "skipped" (with why).
 */
export function runSuites(suites, { log = console.log } = {}) {
  const results = [];
  for (const suite of suites) {
    const skipped = suite.skip?.();
    if (skipped) {
      const failed = suite.required?.() ?? false;
      const [mark, outcome, note] = failed ? ["✘", "FAILED", ", but CI must run it"] : ["–", "SKIPPED", ""];
      log(`\n${mark} ${suite.name} ${outcome}: ${skipped}${note}`);
      results.push({ name: suite.name, outcome: failed ? "failed" : "skipped", detail: skipped, ms: 0 });
      continue;
    }
    log(`\n▶ ${suite.name}: ${suite.command.map((part) => (part === node ? "node" : part)).join(" ")}`);
    const started = Date.now();
    const run = spawnSync(suite.command[0], suite.command.slice(1), { stdio: "inherit" });
    const ms = Date.now() - started;
    const passed = run.status === 0;
    const detail = passed
      ? ""
      : run.error
        ? run.error.message
        : run.signal
          ? `killed by ${run.signal}`
          : `exit ${run.status}`;
    log(`${passed ? "✔" : "✘"} ${suite.name} ${passed ? "passed" : `FAILED (${detail})`} in ${seconds(ms)}`);
    results.push({ name: suite.name, outcome: passed ? "passed" : "failed", detail, ms });
  }
  const width = Math.max(...results.map((result) => result.name.length));
  const mark = { passed: "✔", failed: "✘", skipped: "–" };
  log("\nnpm test:");
  for (const { name, outcome, detail, ms } of results) {
    const what =
      outcome === "passed"
        ? `passed in ${seconds(ms)}`
        : outcome === "failed"
          ? `FAILED (${detail})${ms ? ` in ${seconds(ms)}` : ""}`
          : `skipped: ${detail}`;
    log(`  ${mark[outcome]} ${name.padEnd(width)}  ${what}`);
  }
  const failed = results.filter((result) => result.outcome === "failed").length;
  log(
    failed
      ? `${failed} of ${results.length} suites failed.`
      : `Every suite passed${results.some((r) => r.outcome === "skipped") ? " or was skipped" : ""}.`,
  );
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.length > 2) {
    console.error("npm test runs every suite and takes no arguments; run one test file with npx vitest run <file>");
    process.exit(2);
  }
  const results = runSuites(SUITES);
  process.exit(results.some((result) => result.outcome === "failed") ? 1 : 0);
}
