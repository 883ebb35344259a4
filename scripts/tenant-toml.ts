/**
 * Text edits of wrangler.toml for per-tenant environments. Wrangler environments inherit neither
 * vars nor bindings (Durable Objects, KV namespaces), so a tenant's block repeats the top-level ones. Only the simple
 * TOML this project writes is understood: `[table]` / `[[array]]` headers each followed by `key = value`
 * lines. (There is no TOML library among the dependencies, and this is all the script needs.)
 */

export interface TopLevel {
  /** Raw `key = value` lines of the top-level [vars] table. */
  vars: string[];
  /** Each top-level [[durable_objects.bindings]] entry as its raw `key = value` lines. */
  durableObjects: string[][];
  /** Each top-level [[kv_namespaces]] entry as its raw `key = value` lines. */
  kvNamespaces: string[][];
}

const HEADER = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*$/;

/** Split into [header, body lines] sections; the preamble before the first header has header "". */
function sections(toml: string): { header: string; array: boolean; lines: string[] }[] {
  const out = [{ header: "", array: false, lines: [] as string[] }];
  for (const line of toml.split(/\r?\n/)) {
    const match = HEADER.exec(line);
    if (match) out.push({ header: match[1]!, array: line.trim().startsWith("[["), lines: [] });
    else out[out.length - 1]!.lines.push(line);
  }
  return out;
}

const keyLines = (lines: string[]) =>
  lines.filter((line) => /^\s*[A-Za-z0-9_"-]+\s*=/.test(line)).map((line) => line.trim());

export function readTopLevel(toml: string): TopLevel {
  const all = sections(toml);
  return {
    vars: all.filter((s) => s.header === "vars" && !s.array).flatMap((s) => keyLines(s.lines)),
    durableObjects: all.filter((s) => s.header === "durable_objects.bindings" && s.array).map((s) => keyLines(s.lines)),
    kvNamespaces: all.filter((s) => s.header === "kv_namespaces" && s.array).map((s) => keyLines(s.lines)),
  };
}

/** Names of the [env.<name>] environments already in the file. */
export function envNames(toml: string): string[] {
  const names = new Set<string>();
  for (const s of sections(toml)) {
    const match = /^env\.([A-Za-z0-9_-]+)/.exec(s.header);
    if (match) names.add(match[1]!);
  }
  return [...names];
}

/** The value of `field` in each `[[<table>]]` entry of one environment. */
function envEntries(toml: string, table: string, field: string): string[] {
  const value = new RegExp(`^${field}\\s*=\\s*"(.*)"$`);
  return sections(toml)
    .filter((s) => s.header === table && s.array)
    .map(
      (s) =>
        keyLines(s.lines)
          .find((line) => line.startsWith(field))
          ?.replace(value, "$1") ?? "",
    );
}

/** Durable Object binding names declared for one environment. */
export function envDurableObjects(toml: string, env: string): string[] {
  return envEntries(toml, `env.${env}.durable_objects.bindings`, "name");
}

/** KV namespace binding names declared for one environment. */
export function envKvNamespaces(toml: string, env: string): string[] {
  return envEntries(toml, `env.${env}.kv_namespaces`, "binding");
}

/**
 * The block appended for a tenant: its entry module (which bundles tenants/<name>.json, see
 * scripts/tenant-files.ts), the top-level vars it must repeat, the DO and KV bindings.
 */
export function renderTenantEnv(name: string, top: TopLevel, demoVar = "TOOLGATE_DEMO"): string {
  // Explicitly off: a tenant never falls back to the demo (and wrangler sees every top-level var repeated).
  const vars = top.vars.map((line) => (line.startsWith(demoVar) ? `${demoVar} = "false"` : line));
  const out = [
    "",
    `# Tenant "${name}" (npm run tenant:add ${name}). Deploy: npx wrangler deploy --env ${name}`,
    `# Its configuration is tenants/${name}.json, bundled into the Worker by tenants/${name}.ts.`,
    `# Environments inherit neither vars nor bindings (Durable Objects, KV): they are repeated here.`,
    `[env.${name}]`,
    `main = "tenants/${name}.ts"`,
    "",
    `[env.${name}.vars]`,
    ...vars,
  ];
  for (const binding of top.durableObjects) out.push("", `[[env.${name}.durable_objects.bindings]]`, ...binding);
  // No id: wrangler deploy provisions the environment's own namespace (tenants share no state).
  for (const binding of top.kvNamespaces)
    out.push("", `[[env.${name}.kv_namespaces]]`, ...binding.filter((line) => !line.startsWith("id")));
  return `${out.join("\n")}\n`;
}
