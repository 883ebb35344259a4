// The connections library (oauth4webapi and toolgate's code over it in worker/connections/lazy/) as a
// module of the Worker's own, apart from its bundle, as the identity library is (scripts/identity-module.mjs):
// worker/connections-library.ts imports it on first use, so no isolate parses it at startup and tenants
// without connections never do. Bundles worker/connections/lazy/entry.ts, minified, into
// worker/connections/library.generated.mjs (git-ignored; wrangler.toml's find_additional_modules uploads
// it). The entry may import only oauth4webapi and files of its folder. Usage: node scripts/connections-module.mjs
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { libraryInputAllowed, writeLibraryModule } from "./library-module.mjs";

export const CONNECTIONS_PACKAGES = ["oauth4webapi"];
export const CONNECTIONS_ENTRY = "worker/connections/lazy/entry.ts";
export const CONNECTIONS_MODULE = "worker/connections/library.generated.mjs";

/** Whether a bundled input (a path relative to the root) may be in the module. */
export function connectionsInputAllowed(input) {
  return libraryInputAllowed(input, "worker/connections/lazy/", CONNECTIONS_PACKAGES);
}

/** Writes <root>/worker/connections/library.generated.mjs (and its .d.mts); throws naming a foreign input. */
export function writeConnectionsModule(root = process.cwd()) {
  return writeLibraryModule({
    root,
    entry: CONNECTIONS_ENTRY,
    module: CONNECTIONS_MODULE,
    packages: CONNECTIONS_PACKAGES,
    script: "scripts/connections-module.mjs",
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await writeConnectionsModule();
  } catch (error) {
    console.error(`connections-module: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
