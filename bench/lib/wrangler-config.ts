import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { unstable_readConfig } from "wrangler";

/**
 * A wrangler config (JSON) for the Worker in `app` with other vars: what a tenant environment would
 * hold, written under .tmp/ so the checkout's wrangler.toml is never touched. Bindings, migrations,
 * compatibility and build settings come from `app`'s wrangler.toml (its top-level environment); `main`
 * another entry (a bundled tenant's, bench/lib/bundled-tenant.ts). `assets: false` leaves out `[assets]`, and
 * with it the static-assets router in front of the Worker (a bench variant: the console is then not served).
 */
export function writeWranglerConfig(
  app: string,
  file: string,
  vars: Record<string, string>,
  main?: string,
  options: { assets?: boolean } = {},
): string {
  const configPath = resolve(app, "wrangler.toml");
  const base = unstable_readConfig({ config: configPath });
  const config = {
    name: base.name,
    main: main ?? resolve(dirname(configPath), base.main!),
    compatibility_date: base.compatibility_date,
    compatibility_flags: base.compatibility_flags,
    // Built as the Worker itself is: without these a bench measures another build (keep_names alone
    // wraps every function the bundle creates in a __name() call).
    keep_names: base.keep_names,
    minify: base.minify,
    // Modules beside the bundle (the OAuth library's), uploaded as the Worker's own are.
    find_additional_modules: base.find_additional_modules,
    rules: base.rules,
    // Packages the bundle replaces (the JSON Schema validator's stand-in), at their paths in `app`:
    // relative paths resolve from the config's folder, which here is .tmp/.
    ...(base.alias
      ? {
          alias: Object.fromEntries(
            Object.entries(base.alias as Record<string, string>).map(([name, path]) => [
              name,
              path.startsWith(".") ? resolve(dirname(configPath), path) : path,
            ]),
          ),
        }
      : {}),
    kv_namespaces: base.kv_namespaces,
    ...(options.assets === false
      ? {}
      : {
          assets: {
            directory: resolve(dirname(configPath), base.assets!.directory!),
            run_worker_first: base.assets!.run_worker_first,
          },
        }),
    durable_objects: base.durable_objects,
    migrations: base.migrations,
    vars,
  };
  writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}
