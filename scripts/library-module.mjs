// A library the Worker loads on first use, as a module of its own beside the bundle (wrangler.toml's
// find_additional_modules uploads it): scripts/identity-module.mjs and scripts/telemetry-module.mjs
// describe theirs, and this builds it. The entry may import only its own folder, the packages named
// and the folders allowed: anything else would be a second copy of code the bundle holds (a class that
// fails instanceof), so the build stops naming it.
import { relative, resolve, sep } from "node:path";
import { writeIfChanged } from "./oauth-module.mjs";

/**
 * Whether a bundled input (a path relative to the root, as esbuild's metafile names it) may be in the
 * module: under one of `folders`, or anywhere under a node_modules folder of one of `packages` (a checkout
 * whose node_modules is a link, a scratch copy of the tree, resolves it to the real folder, outside the root).
 */
export function inputAllowed(input, { folders, packages }) {
  const path = input.split(sep).join("/");
  return (
    folders.some((folder) => path.startsWith(folder)) ||
    packages.some((name) => path.startsWith(`node_modules/${name}/`) || path.includes(`/node_modules/${name}/`))
  );
}

/**
 * Bundles `spec.entry`, minified, into `spec.module` (and its .d.mts, `spec.declaration`) under root.
 * Answers the bundle's inputs (paths relative to the root); throws when one is not allowed.
 */
export async function writeLibraryModule(root, spec) {
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [resolve(root, spec.entry)],
    absWorkingDir: resolve(root),
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker", "browser"],
    mainFields: ["module", "main"],
    minify: true,
    legalComments: "none",
    metafile: true,
    write: false,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs).map((input) => relative(resolve(root), resolve(root, input)));
  const foreign = inputs.filter((input) => !inputAllowed(input, spec));
  if (foreign.length > 0)
    throw new Error(
      `${spec.entry} may import only ${[...spec.packages, ...spec.folders].join(", ")}; ` +
        `it reaches ${foreign.join(", ")}`,
    );
  const path = resolve(root, spec.module);
  const changed = writeIfChanged(path, spec.header + result.outputFiles[0].text);
  writeIfChanged(path.replace(/\.mjs$/, ".d.mts"), spec.declaration);
  return { path, changed, inputs };
}
