// The identity library (jose, oauth4webapi, and toolgate's code over them in worker/identity/lazy/) as a
// module of the Worker's own, apart from its bundle, as the OAuth library is (scripts/oauth-module.mjs):
// worker/identity-library.ts imports it on first use, so no isolate parses it at startup and tenants
// without identity never do. Bundles worker/identity/lazy/entry.ts, minified, into
// worker/identity/library.generated.mjs (git-ignored; wrangler.toml's find_additional_modules uploads
// it), with a declaration giving it the entry's types. The entry may import only the two packages and
// files of its folder: anything else would be a second copy of code the bundle holds (a class that
// fails instanceof), so the build stops naming it. Usage: node scripts/identity-module.mjs
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { libraryInputAllowed, writeLibraryModule } from "./library-module.mjs";

export const IDENTITY_PACKAGES = ["jose", "oauth4webapi"];
export const IDENTITY_ENTRY = "worker/identity/lazy/entry.ts";
export const IDENTITY_MODULE = "worker/identity/library.generated.mjs";

/** Whether a bundled input (a path relative to the root, as esbuild's metafile names it) may be in the module. */
export function identityInputAllowed(input) {
  return libraryInputAllowed(input, "worker/identity/lazy/", IDENTITY_PACKAGES);
}

/**
 * Writes <root>/worker/identity/library.generated.mjs (and its .d.mts). Answers the bundle's inputs
 * (paths relative to the root); throws when one is neither of the packages nor under worker/identity/lazy/.
 */
export function writeIdentityModule(root = process.cwd()) {
  return writeLibraryModule({
    root,
    entry: IDENTITY_ENTRY,
    module: IDENTITY_MODULE,
    packages: IDENTITY_PACKAGES,
    script: "scripts/identity-module.mjs",
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await writeIdentityModule();
  } catch (error) {
    console.error(`identity-module: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
