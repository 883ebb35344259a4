import { Validator as CfValidator, type OutputUnit, type Schema, type SchemaDraft } from "@cfworker/json-schema";
import type { ValidationIssue } from "../errors";
import { isPlainObject, type JsonSchema } from "../json";
import { joinPath } from "../json-path";
import type { Validator } from "../validation";

/** Keywords whose error only says "a child failed"; the child's own error is the useful one. */
const SUMMARY_KEYWORDS = new Set([
  "properties",
  "items",
  "prefixItems",
  "additionalItems",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "unevaluatedItems",
  "dependentSchemas",
  "$ref",
  "$recursiveRef",
  "$dynamicRef",
  "allOf",
]);

const MAX_ISSUES = 20;

function draftOf(schema: JsonSchema): SchemaDraft {
  const uri = typeof schema.$schema === "string" ? schema.$schema : "";
  if (uri.includes("draft-04")) return "4";
  if (uri.includes("draft-07") || uri.includes("draft-06")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}

/** Keywords with a URI or name that the validator resolves when it is built (where building can fail). */
const URI_KEYWORDS = new Set(["$id", "id", "$ref", "$anchor", "$recursiveRef", "$dynamicRef"]);

/**
 * Compile every `pattern` / `patternProperties` key now, so a bad regex fails at declaration, not
 * mid-call. Answers whether the schema holds a URI keyword (a string $id, $ref, $anchor …).
 */
function checkPatterns(node: unknown, where: string): boolean {
  if (Array.isArray(node)) {
    let uris = false;
    for (const [i, item] of node.entries()) uris = checkPatterns(item, `${where}/${i}`) || uris;
    return uris;
  }
  if (!isPlainObject(node)) return false;
  let uris = false;
  for (const key in node) {
    const value = node[key];
    if (typeof value === "string") {
      if (key === "pattern") compile(value, `${where}/pattern`);
      else if (URI_KEYWORDS.has(key)) uris = true;
      continue;
    }
    if (key === "patternProperties" && isPlainObject(value)) {
      for (const p of Object.keys(value)) compile(p, `${where}/patternProperties`);
    }
    if (key !== "enum" && key !== "const" && key !== "examples" && key !== "default")
      uris = checkPatterns(value, `${where}/${key}`) || uris;
  }
  return uris;
}

function compile(pattern: string, where: string): void {
  try {
    new RegExp(pattern, "u");
  } catch {
    throw new TypeError(`Invalid JSON Schema: ${where} is not a valid regular expression: ${JSON.stringify(pattern)}`);
  }
}

/** "#/a/b/0" → "a.b[0]", using the instance to tell array indexes from object keys. */
export function pointerToPath(pointer: string, instance: unknown): string {
  const raw = pointer.replace(/^#\/?/, "");
  if (raw === "") return "";
  let out = "";
  let node: unknown = instance;
  for (const encoded of raw.split("/")) {
    const segment = safeDecode(encoded).replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node) && /^\d+$/.test(segment)) {
      out = joinPath(out, Number(segment));
      node = node[Number(segment)];
    } else {
      out = joinPath(out, segment);
      node = isPlainObject(node) ? node[segment] : undefined;
    }
  }
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** `Instance does not have required property "b".`: the library names the property in its message only. */
const MISSING = /^Instance does not have required property "(.*)"\.$/s;

/**
 * Where an error is: its instance location, or for a missing required property the property itself
 * ("b", "owner.name"), as valibot says it, so a form shows it on that field.
 */
function issuePath(error: OutputUnit, instance: unknown): string {
  const path = pointerToPath(error.instanceLocation, instance);
  const missing = error.keyword === "required" ? MISSING.exec(error.error) : null;
  return missing ? joinPath(path, missing[1]!) : path;
}

function toIssues(errors: readonly OutputUnit[], instance: unknown): ValidationIssue[] {
  const leaves = errors.filter((e) => !SUMMARY_KEYWORDS.has(e.keyword));
  const chosen = leaves.length > 0 ? leaves : errors;
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const error of chosen) {
    const path = issuePath(error, instance);
    // `false` schemas (additionalProperties: false) say "False boolean schema."; say what it means.
    const message = error.keyword === "false" ? "Unexpected property or item (not allowed by the schema)" : error.error;
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path, message });
    if (issues.length === MAX_ISSUES) break;
  }
  return issues;
}

/**
 * A Validator from a JSON Schema (drafts 4, 7, 2019-09, 2020-12; 2020-12 when $schema is absent),
 * for tools whose schema comes from configuration or a remote server. Interprets the schema at run
 * time, with no code generation, so it runs on Workers. Throws a TypeError when the schema is not
 * an object, describes something other than an object (tool inputs are always objects at the root;
 * `anyRoot` lifts this for outputs, which an upstream may answer as a list) or holds an invalid
 * regular expression.
 */
export function jsonSchemaValidator<T = unknown>(
  schema: JsonSchema,
  options: { anyRoot?: boolean } = {},
): Validator<T> {
  if (!isPlainObject(schema)) {
    throw new TypeError(
      `Invalid JSON Schema: expected an object at the root, got ${Array.isArray(schema) ? "an array" : typeof schema}`,
    );
  }
  if (!options.anyRoot && schema.type !== undefined && schema.type !== "object") {
    throw new TypeError(
      `Invalid JSON Schema: a tool's input schema must have type "object", got ${JSON.stringify(schema.type)}`,
    );
  }
  const hasUris = checkPatterns(schema, "#");
  // Building the validator walks the whole schema; a tenant with many declared tools would pay it for
  // every tool on its first request, so it is built on the first validation. Only URI keywords can
  // make building fail: such a schema is built now, so the fault still names the declaration.
  let validator = hasUris ? new CfValidator(schema as Schema, draftOf(schema), false) : undefined;
  return (value) => {
    let result: ReturnType<CfValidator["validate"]>;
    try {
      validator ??= new CfValidator(schema as Schema, draftOf(schema), false);
      result = validator.validate(value);
    } catch (error) {
      // Unresolvable $ref and similar schema faults surface only while validating.
      const reason = error instanceof Error ? error.message : String(error);
      return { ok: false, issues: [{ path: "", message: `The tool's schema could not be applied: ${reason}` }] };
    }
    if (result.valid) return { ok: true, value: value as T };
    return { ok: false, issues: toIssues(result.errors, value) };
  };
}
