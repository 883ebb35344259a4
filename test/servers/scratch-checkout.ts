import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** A copy of this checkout as a fresh clone has it, for tests that change files or build from nothing. */
export interface ScratchCheckout {
  root: string;
  remove(): void;
}

/**
 * Copies the checkout's files (tracked and new, not ignored: no dist/, no generated modules, as a
 * fresh clone has them; docs/ left out) into a temporary folder, with node_modules linked to this
 * checkout's (installed). Nothing the copy's builds write reaches this checkout.
 */
export function scratchCheckout(): ScratchCheckout {
  const root = mkdtempSync(join(tmpdir(), "toolgate-scratch-"));
  const listed = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    encoding: "utf8",
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  // Files deleted in the worktree but still in the index are skipped: tar reads what exists.
  const files = listed.stdout.split("\0").filter((file) => file !== "" && !file.startsWith("docs/"));
  const copy = spawnSync("tar", ["-cf", "-", "--null", "--ignore-failed-read", "-T", "-"], {
    input: files.join("\0"),
    maxBuffer: 1 << 30,
  });
  if (copy.status !== 0) throw new Error(`tar failed: ${copy.stderr}`);
  mkdirSync(root, { recursive: true });
  const unpack = spawnSync("tar", ["-xf", "-", "-C", root], { input: copy.stdout });
  if (unpack.status !== 0) throw new Error(`tar -x failed: ${unpack.stderr}`);
  symlinkSync(resolve("node_modules"), join(root, "node_modules"));
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
