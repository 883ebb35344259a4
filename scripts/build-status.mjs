// The outcome of the last build under dev, written by the build command (scripts/build.mjs) and
// printed by `npm run dev` (scripts/dev.ts) when it changes.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const FILE = ".wrangler/toolgate-build-status.json";

/** @param {string} root @param {{ ok: boolean; message?: string; file?: string }} status */
export function writeBuildStatus(root, status) {
  const path = join(root, FILE);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify({ ...status, at: Date.now() }));
}

/** @param {string} root @returns {{ ok: boolean; message?: string; file?: string; at: number } | undefined} */
export function readBuildStatus(root) {
  try {
    return JSON.parse(readFileSync(join(root, FILE), "utf8"));
  } catch {
    return undefined;
  }
}

/** @param {string} root */
export const buildStatusPath = (root) => join(root, FILE);
