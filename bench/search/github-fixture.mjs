// Writes bench/search/github-rest.generated.json: GitHub's REST API (api.github.com, from the npm package
// @octokit/openapi) trimmed to what a tool listing shows, as an OpenAPI 3 document toolgate's OpenAPI
// adapter imports. The package is 400 MB unpacked, so it is fetched here with `npm pack`, not installed.
// Usage: node bench/search/github-fixture.mjs [version]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const version = process.argv[2] ?? "23.0.2";
const dir = mkdtempSync(join(tmpdir(), "octokit-openapi-"));
execFileSync("npm", ["pack", `@octokit/openapi@${version}`, "--pack-destination", dir], { stdio: "ignore" });
execFileSync("tar", ["xzf", `octokit-openapi-${version}.tgz`, "package/generated/api.github.com.json"], { cwd: dir });
const doc = JSON.parse(readFileSync(join(dir, "package/generated/api.github.com.json"), "utf8"));

const METHODS = ["get", "put", "post", "delete", "patch"];
/** Plain prose: markdown links and emphasis dropped, the first paragraph, at most `max` characters. */
function prose(text, max) {
  if (typeof text !== "string") return undefined;
  const plain = text
    .split(/\n\s*\n/)[0]
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[*`]+/g, "")
    .replace(/(^|\s)_+|_+(\s|[.,;:]|$)/g, "$1$2")
    .replace(/\s+/g, " ")
    .trim();
  if (plain.length <= max) return plain || undefined;
  const cut = plain.slice(0, max);
  const sentence = cut.lastIndexOf(". ");
  return sentence > max / 2 ? cut.slice(0, sentence + 1) : `${cut.replace(/\s+\S*$/, "")}…`;
}
const deref = (node) => {
  let seen = node;
  while (seen && typeof seen.$ref === "string")
    seen = seen.$ref
      .slice(2)
      .split("/")
      .reduce((at, key) => at?.[key], doc);
  return seen ?? {};
};
/** A schema reduced to its type (and enum, items' type), with a short description. */
function shape(node, depth = 0) {
  const schema = deref(node);
  const variant = schema.oneOf?.[0] ?? schema.anyOf?.[0] ?? schema.allOf?.[0];
  const base = variant ? { ...deref(variant), ...schema } : schema;
  const out = {};
  if (typeof base.type === "string") out.type = base.type;
  if (Array.isArray(base.enum) && base.enum.length <= 12) out.enum = base.enum.filter((e) => e !== null);
  if (out.type === "array") out.items = depth < 1 && base.items ? shape(base.items, depth + 1) : {};
  const description = prose(schema.description, 100);
  if (description) out.description = description;
  return out;
}

const paths = {};
let operations = 0;
for (const [path, item] of Object.entries(doc.paths)) {
  for (const method of METHODS) {
    const op = item[method];
    if (!op?.operationId) continue;
    const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map(deref).map((p) => ({
      name: p.name,
      in: p.in,
      ...(p.required ? { required: true } : {}),
      schema: shape({ ...(p.schema ?? {}), ...(p.description ? { description: p.description } : {}) }),
    }));
    const trimmed = {
      operationId: op.operationId,
      summary: op.summary,
      ...(prose(op.description, 240) ? { description: prose(op.description, 240) } : {}),
      tags: op.tags,
      ...(parameters.length ? { parameters } : {}),
    };
    const body = deref(op.requestBody).content?.["application/json"]?.schema;
    if (body) {
      const schema = deref(body);
      const properties = Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, node]) => [name, shape(node)]),
      );
      trimmed.requestBody = {
        ...(deref(op.requestBody).required ? { required: true } : {}),
        content: { "application/json": { schema: { type: "object", properties } } },
      };
    }
    (paths[path] ??= {})[method] = trimmed;
    operations++;
  }
}
const out = {
  openapi: "3.0.3",
  info: { title: doc.info.title, version: doc.info.version, "x-source": `@octokit/openapi@${version}` },
  servers: doc.servers,
  paths,
};
writeFileSync(new URL("./github-rest.generated.json", import.meta.url), `${JSON.stringify(out)}\n`);
console.log(`${operations} operations`);
