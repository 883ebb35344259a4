/**
 * npm run tenant:add <name> [-- --tools add,echo]
 * Writes the tenant's configuration tenants/<name>.json and its Worker entry tenants/<name>.ts (which
 * bundles it: Cloudflare caps a var at 5 KB), appends an [env.<name>] block to wrangler.toml (its main,
 * and the vars and Durable Object bindings environments do not inherit), generates its admin key
 * (printed once, only its SHA-256 is stored) and prints the steps to deploy.
 */
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { loadConfigBlocks } from "../worker/config-blocks-library";
import { CATALOG } from "../worker/tenant/catalog";
import type { TenantConfigInput } from "../worker/tenant/config";
import { checkTenant } from "../worker/tenant/tenant";
import { formatConfig, renderTenantModule, TENANTS_DIR } from "./tenant-files";
import { envNames, readTopLevel, renderTenantEnv } from "./tenant-toml";

const WRANGLER = "wrangler.toml";

function fail(message: string): never {
  console.error(`tenant:add: ${message}`);
  process.exit(1);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { tools: { type: "string" }, config: { type: "string", default: WRANGLER } },
});
const name = positionals[0];
if (!name || positionals.length > 1) fail("usage: npm run tenant:add <name> [-- --tools add,echo]");
if (!/^[a-z][a-z0-9-]{0,39}$/.test(name))
  fail(`"${name}" is not a tenant name: lowercase letters, digits and -, starting with a letter`);

const file = values.config!;
const toml = readFileSync(file, "utf8");
if (envNames(toml).includes(name)) fail(`${file} already has [env.${name}]`);
// Beside the wrangler config: its main = "tenants/<name>.ts" is relative to it.
const dir = join(dirname(file), TENANTS_DIR);
const jsonFile = join(dir, `${name}.json`);
const moduleFile = join(dir, `${name}.ts`);
for (const path of [jsonFile, moduleFile]) if (existsSync(path)) fail(`${path} already exists`);

const key = `tg_${randomBytes(32).toString("base64url")}`;
const config: TenantConfigInput = {
  name,
  tools: values.tools ? values.tools.split(",").map((tool) => tool.trim()) : [...CATALOG.keys()],
  keys: [{ name: "admin", hash: createHash("sha256").update(key).digest("hex"), scopes: ["admin"] }],
  requireApprovalFor: { risk: ["high"] },
  consoleOrigins: [],
  secrets: {},
};
const json = formatConfig(config);
// The same checks the Worker runs (the optional blocks' schemas loaded first): fail here, not after deploying.
await loadConfigBlocks();
try {
  checkTenant(json, jsonFile);
} catch (error) {
  fail((error as Error).message);
}

mkdirSync(dir, { recursive: true });
writeFileSync(jsonFile, json);
writeFileSync(moduleFile, renderTenantModule(name));
writeFileSync(file, toml.replace(/\n*$/, "\n") + renderTenantEnv(name, readTopLevel(toml)));

const keyCommand =
  `node -e "const k='tg_'+require('crypto').randomBytes(32).toString('base64url');` +
  `console.log(k, require('crypto').createHash('sha256').update(k).digest('hex'))"`;
const origin = `https://toolgate-${name}.<your-subdomain>.workers.dev`;
console.log(`Wrote ${jsonFile} and ${moduleFile}; added [env.${name}] to ${file}.

Admin key for "${name}" (shown once; only its SHA-256 is stored in ${jsonFile}):

  ${key}

Next:
  1. Edit ${jsonFile}: tools, policies, limits, adapters, consoleOrigins (npm test checks it).
     More keys: after the deploy, in the console's Keys view or POST /v1/keys (no redeploy); or here:
     ${keyCommand}
  2. For each secret the config names ("secrets": { "NAME": "ENV_VAR" }):
       npx wrangler secret put ENV_VAR --env ${name}
  3. npx wrangler types --strict-vars=false         (the Env type covers the new environment)
  4. npx wrangler deploy --dry-run --env ${name} --outdir .tmp/dry-${name}   (offline build check)
  5. npx wrangler deploy --env ${name}                (deploys the Worker "toolgate-${name}", provisions its OAUTH_KV)
  6. curl -H "Authorization: Bearer <key>" ${origin}/v1/whoami
  7. MCP clients: paste ${origin}/mcp into the connector; an admin approves its sign-in.`);
