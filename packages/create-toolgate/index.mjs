#!/usr/bin/env node
// npm create toolgate <folder>: writes a new toolgate project (the template beside this file) into a
// new folder, with its tenant's admin key, which it prints once (only its SHA-256 is written).
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const TEMPLATE = fileURLToPath(new URL("./template", import.meta.url));
const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));
/** npm leaves .gitignore out of a package; the template holds it as gitignore. */
const RENAMED = { gitignore: ".gitignore" };

function fail(message) {
  console.error(`create-toolgate: ${message}`);
  process.exit(1);
}

/** The template's files, as paths relative to it. */
function templateFiles(dir = TEMPLATE) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? templateFiles(path) : [relative(TEMPLATE, path)];
  });
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { help: { type: "boolean", short: "h" } },
});
if (values.help || positionals.length !== 1) {
  console.log("Usage: npm create toolgate <folder>   (a new folder; its name becomes the Worker's)");
  process.exit(values.help ? 0 : 1);
}
const target = resolve(positionals[0]);
const name = basename(target);
if (!/^[a-z][a-z0-9-]{0,62}$/.test(name))
  fail(`"${name}" cannot name a Worker: lowercase letters, digits and -, starting with a letter`);
if (existsSync(target) && readdirSync(target).length > 0) fail(`${target} exists and is not empty`);

const key = `tg_${randomBytes(32).toString("base64url")}`;
const tenant = {
  name,
  tools: ["*"],
  keys: [{ name: "admin", hash: createHash("sha256").update(key).digest("hex"), scopes: ["admin"] }],
  requireApprovalFor: { risk: ["high"] },
};
const fill = (text) => text.replaceAll("{{name}}", name).replaceAll("{{version}}", version);
for (const file of templateFiles()) {
  const to = join(target, RENAMED[file] ?? file);
  mkdirSync(resolve(to, ".."), { recursive: true });
  writeFileSync(to, fill(readFileSync(join(TEMPLATE, file), "utf8")));
}
mkdirSync(join(target, "tenants"), { recursive: true });
writeFileSync(join(target, "tenants/main.json"), `${JSON.stringify(tenant, null, 2)}\n`);

const where = relative(process.cwd(), target) || ".";
console.log(`Created ${where}: a toolgate Worker named "${name}".

Admin key (shown once; only its SHA-256 is in tenants/main.json):

  ${key}

Next:
  cd ${where}
  npm install
  npm run dev
`);
