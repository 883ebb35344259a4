// The console's browser tests need Debian's Chromium (never a downloaded browser). Without it they
// are skipped with a clear line locally; in CI (which installs it) a missing Chromium is a failure.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const chromium = process.env.TOOLGATE_CHROMIUM ?? "/usr/bin/chromium";
if (!existsSync(chromium)) {
  const line = `console e2e tests SKIPPED: no Chromium at ${chromium} (install it with: apt-get install -y chromium)`;
  if (process.env.CI) {
    console.error(`${line}, but CI must run them.`);
    process.exit(1);
  }
  console.log(`\n${line}\n`);
  process.exit(0);
}
const run = spawnSync(process.execPath, ["node_modules/vitest/vitest.mjs", "run", "--config", "vitest.e2e.config.ts"], { stdio: "inherit" });
process.exit(run.status ?? 1);
