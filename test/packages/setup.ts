import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { packAll } from "../../scripts/pack.mjs";
import { freePort } from "../servers/wrangler-dev";
import { eventually } from "../wait";
import { run, start, type ProjectProcess } from "./project";

/** What the suites get (inject("packages")): the tarballs and a starter project serving on `url`. */
export interface PackagesContext {
  /** A temporary folder outside the repository, removed afterwards. */
  work: string;
  toolgateTarball: string;
  /** The project `npm create toolgate` made, its packages installed from the tarballs. */
  starter: string;
  /** The admin key create-toolgate printed. */
  key: string;
  /** The starter's `wrangler dev`. */
  url: string;
  /** The origin the browser suite serves its app on: the starter's tenant lets it call the API (CORS). */
  browserOrigin: string;
}

declare module "vitest" {
  interface ProvidedContext {
    packages: PackagesContext;
  }
}

const NAME = "tools-starter";
/** A bound for hangs only: wrangler dev's first start compiles and bundles on a busy machine. */
const START_TIMEOUT_MS = 120_000;

/** `npm create toolgate` from its tarball, as a user runs it; answers the admin key it printed once. */
function createStarter(work: string, createTarball: string): string {
  const printed = run("npm", ["exec", "--yes", `--package=${createTarball}`, "--", "create-toolgate", NAME], work);
  const key = /\btg_[A-Za-z0-9_-]{43}\b/.exec(printed)?.[0];
  if (!key) throw new Error(`create-toolgate printed no admin key:\n${printed}`);
  return key;
}

async function startWranglerDev(dir: string): Promise<{ url: string; dev: ProjectProcess }> {
  const port = await freePort();
  const wrangler = join(dir, "node_modules/.bin/wrangler");
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", join(dir, ".wrangler/test")];
  const dev = start(wrangler, args, dir);
  const url = `http://127.0.0.1:${port}`;
  try {
    await eventually(
      async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.ok === true,
      `the starter's wrangler dev answers /healthz\n${dev.output()}`,
      START_TIMEOUT_MS,
    );
  } catch (error) {
    await dev.stop();
    throw new Error(`${error instanceof Error ? error.message : error}\n${dev.output()}`);
  }
  return { url, dev };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const work = mkdtempSync(join(tmpdir(), "toolgate-packages-"));
  let dev: ProjectProcess | undefined;
  const teardown = async () => {
    await dev?.stop();
    rmSync(work, { recursive: true, force: true });
  };
  try {
    const { toolgate, create } = await packAll(join(work, "tarballs"));
    const key = createStarter(work, create);
    const starter = join(work, NAME);
    const browserOrigin = `http://127.0.0.1:${await freePort()}`;
    // The tenant lets the browser app's origin call the API, as a team whose app is served elsewhere does.
    const tenantFile = join(starter, "tenants/main.json");
    const tenant = JSON.parse(readFileSync(tenantFile, "utf8"));
    writeFileSync(tenantFile, `${JSON.stringify({ ...tenant, consoleOrigins: [browserOrigin] }, null, 2)}\n`);
    run("npm", ["install", toolgate], starter);
    const started = await startWranglerDev(starter);
    dev = started.dev;
    project.provide("packages", { work, toolgateTarball: toolgate, starter, key, url: started.url, browserOrigin });
    return teardown;
  } catch (error) {
    await teardown();
    throw error;
  }
}
