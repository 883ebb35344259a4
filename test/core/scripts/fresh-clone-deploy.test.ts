import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CONSOLE_DIR } from "../../../scripts/console-build.mjs";
import { scratchCheckout, type ScratchCheckout } from "../../servers/scratch-checkout";

/**
 * A fresh clone deploys: nothing built yet (no dist/web, no generated module), `wrangler deploy
 * --dry-run` builds what the deploy needs through wrangler.toml's build command, the console too.
 */

let scratch: ScratchCheckout;
beforeAll(() => {
  scratch = scratchCheckout();
});
afterAll(() => scratch?.remove());

it("builds a tenant's deploy, console included, from a checkout where nothing was built", () => {
  expect(existsSync(join(scratch.root, CONSOLE_DIR))).toBe(false);
  const wrangler = resolve("node_modules/wrangler/bin/wrangler.js");
  const run = spawnSync(process.execPath, [wrangler, "deploy", "--dry-run", "--env", "acme", "--outdir", ".tmp/dry"], {
    cwd: scratch.root,
    encoding: "utf8",
  });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  expect(readFileSync(join(scratch.root, CONSOLE_DIR, "index.html"), "utf8")).toContain("<title>");
  expect(existsSync(join(scratch.root, ".tmp/dry/acme.js"))).toBe(true);
}, 120_000);
