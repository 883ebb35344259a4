// The console (web/, built by vite to dist/web, which the Worker serves as static assets), built when
// its sources changed since the last build: wrangler's [build] command runs this before every dev,
// deploy and dry run, so a fresh clone deploys and a dev server always serves the console of its
// sources. The hash of those sources is kept beside the output (dist/web.source-hash, outside the
// assets folder, so it is never uploaded). Builds that run at once (tests start several dev servers)
// take turns through a lock folder, so none reads or uploads a half-written dist/web.
// Usage: node scripts/console-build.mjs [--force]   (npm run build:web forces a build)
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { hashFiles } from "./source-hash.mjs";

export const CONSOLE_DIR = "dist/web";
export const CONSOLE_HASH_FILE = "dist/web.source-hash";
const LOCK_DIR = "dist/.web-build.lock";
/** The console's sources: web/ and the core it imports (src/), and the locked package versions. */
const CONSOLE_SOURCES = ["web", "src"];
const CONSOLE_FILES = ["package-lock.json"];
const ANY_FILE = /./;
/** A build takes about a second; a lock held longer than this belongs to a build that hung. */
const LOCK_WAIT_MS = 120_000;

/** Hex SHA-256 of the console's sources now. */
export function consoleSourceHash(root = process.cwd()) {
  return hashFiles(root, CONSOLE_SOURCES, CONSOLE_FILES, ANY_FILE);
}

/** Whether dist/web holds the build of the sources as they are now. */
export function consoleIsCurrent(root = process.cwd()) {
  const stamp = resolve(root, CONSOLE_HASH_FILE);
  return (
    existsSync(resolve(root, CONSOLE_DIR, "index.html")) &&
    existsSync(stamp) &&
    readFileSync(stamp, "utf8") === consoleSourceHash(root)
  );
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error?.code === "EPERM";
  }
};

/** Takes the lock folder, waiting while another live process holds it; returns its release. */
async function lock(root) {
  const dir = resolve(root, LOCK_DIR);
  mkdirSync(resolve(root, "dist"), { recursive: true });
  const until = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "pid"), String(process.pid));
      return () => rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      if (error?.code !== "EEXIST") throw error;
    }
    const owner = Number(existsSync(join(dir, "pid")) ? readFileSync(join(dir, "pid"), "utf8") : NaN);
    // A holder that died (killed mid-build) never releases it: its lock is taken over.
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) rmSync(dir, { recursive: true, force: true });
    else if (Date.now() > until)
      throw new Error(`the console build lock ${LOCK_DIR} is still held (pid ${owner}); remove it if no build runs`);
    else await new Promise((done) => setTimeout(done, 100));
  }
}

/**
 * Builds the console into dist/web unless it is current (`force`: build anyway). Returns whether it
 * built. The hash is written after the build, so a build that failed half-way is never taken as current.
 */
export async function buildConsole(root = process.cwd(), { force = false } = {}) {
  if (!force && consoleIsCurrent(root)) return false;
  const release = await lock(root);
  try {
    // Another process may have built it while this one waited.
    if (!force && consoleIsCurrent(root)) return false;
    rmSync(resolve(root, CONSOLE_HASH_FILE), { force: true });
    const hash = consoleSourceHash(root);
    const { build } = await import("vite");
    await build({ configFile: resolve(root, "web/vite.config.ts"), logLevel: "warn" });
    writeFileSync(resolve(root, CONSOLE_HASH_FILE), hash);
    return true;
  } finally {
    release();
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await buildConsole(process.cwd(), { force: process.argv.includes("--force") });
  } catch (error) {
    console.error(`console-build: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
