import type { JsonSchema } from "../json";
import type { Tool } from "../tool";
import { acceptsNull, isSchemaObject, requireObjectRoot, resolveRef, typesOf, where } from "../schema/walk";

/**
 * OpenAI's strict mode (Structured Outputs) accepts a subset of JSON Schema: every object closed with
 * additionalProperties:false, every property required (optional ones become nullable), no open records,
 * tuples or conditional keywords. The keyword list follows the openai SDK's own strict transform
 * (openai/lib/transform), the limits follow the Structured Outputs guide.
 */
const UNSUPPORTED = [
  "$anchor",
  "$dynamicAnchor",
  "$dynamicRef",
  "$recursiveAnchor",
  "$recursiveRef",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "minContains",
  "maxContains",
  "contentEncoding",
  "contentMediaType",
  "contentSchema",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "patternProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "unevaluatedProperties",
  "uniqueItems",
];
/** String formats strict mode knows; others are dropped (the pipeline still validates them). */
const UNSUPPORTED_KEYS = new Set(UNSUPPORTED);
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
const LIMITS = { depth: 10, properties: 5000, enumValues: 1000 };
/** Keys handled structurally below, or meaningless to OpenAI. */
const HANDLED = new Set([
  "properties",
  "required",
  "additionalProperties",
  "items",
  "anyOf",
  "oneOf",
  "format",
  "$defs",
  "definitions",
  "$schema",
  "$id",
]);

export type StrictForm = { ok: true; schema: JsonSchema } | { ok: false; reason: string };

class NotStrict extends Error {}

interface State {
  root: JsonSchema;
  properties: number;
  enumValues: number;
}

/** OpenAI parameters: the strict form where the schema allows it, else the plain schema with strict false. */
export function toOpenAIParameters(tool: Tool): { parameters: JsonSchema; strict: boolean } {
  const root = requireObjectRoot(tool.name, tool.inputSchema, "OpenAI");
  const form = toStrictSchema(root);
  return form.ok ? { parameters: form.schema, strict: true } : { parameters: root, strict: false };
}

/** The strict form of an object schema, or why there is none. Never mutates its input. */
export function toStrictSchema(root: JsonSchema): StrictForm {
  const state: State = { root, properties: 0, enumValues: 0 };
  const union = ["anyOf", "oneOf"].find((key) => key in root);
  if (union) return { ok: false, reason: `the root uses "${union}" (strict mode needs a plain object there)` };
  try {
    const out = strictify(root, [], 1, state);
    for (const key of ["$defs", "definitions"] as const) {
      const defs = root[key];
      if (defs === undefined) continue;
      if (!isSchemaObject(defs)) throw new NotStrict(`${key} is not an object`);
      out[key] = Object.fromEntries(
        Object.entries(defs).map(([name, def]) => [name, strictify(def, [key, name], 1, state)]),
      );
    }
    return { ok: true, schema: out };
  } catch (error) {
    if (error instanceof NotStrict) return { ok: false, reason: error.message };
    throw error;
  }
}

function strictify(node: unknown, path: string[], depth: number, state: State): JsonSchema {
  const fail = (what: string): never => {
    throw new NotStrict(`${where(path)} ${what}`);
  };
  if (!isSchemaObject(node)) return fail("is not a schema object");
  // One pass over the node's few keys: copy what is not handled below, and spot an unsupported keyword
  // (named as UNSUPPORTED orders them); 28 `in` lookups per node were most of a large listing's cost.
  const out: JsonSchema = {};
  let unsupported = false;
  for (const key in node) {
    if (!Object.hasOwn(node, key)) continue;
    if (UNSUPPORTED_KEYS.has(key)) unsupported = true;
    else if (!HANDLED.has(key)) out[key] = node[key];
  }
  if (unsupported) fail(`uses "${UNSUPPORTED.find((key) => Object.hasOwn(node, key))}"`);
  if (path.length > 0 && path[0] !== "$defs" && path[0] !== "definitions" && ("$defs" in node || "definitions" in node))
    fail("nests definitions");
  if ("anyOf" in node && "oneOf" in node) fail("combines anyOf and oneOf");

  if (typeof node.format === "string" && FORMATS.has(node.format)) out.format = node.format;

  const types = typesOf(node);
  if ("$ref" in node && (typeof node.$ref !== "string" || !resolveRef(state.root, node.$ref)))
    fail("has an unresolvable $ref");
  if (Array.isArray(node.enum) && (state.enumValues += node.enum.length) > LIMITS.enumValues)
    fail(`pushes enum values past ${LIMITS.enumValues}`);

  const objectLike = types
    ? types.includes("object")
    : isSchemaObject(node.properties) || "required" in node || "additionalProperties" in node;
  if (objectLike) Object.assign(out, closeObject(node, path, depth, state, fail), types ? {} : { type: "object" });

  if (types?.includes("array") || "items" in node) {
    if (Array.isArray(node.items)) fail("is a tuple (items as a list)");
    if (node.items === undefined) fail("is an array without items");
    if (depth >= LIMITS.depth) fail(`nests deeper than ${LIMITS.depth} levels`);
    out.items = strictify(node.items, [...path, "items"], depth + 1, state);
  }

  const branches = node.anyOf ?? node.oneOf;
  if (branches !== undefined) {
    if (!Array.isArray(branches) || branches.length === 0) fail("has an empty or malformed anyOf/oneOf");
    // oneOf → anyOf: strict mode knows only anyOf; the pipeline still enforces the exact schema.
    out.anyOf = (branches as unknown[]).map((b, i) => strictify(b, [...path, "anyOf", String(i)], depth, state));
  }

  const typed = types || objectLike || "$ref" in node || "enum" in node || "const" in node || branches !== undefined;
  if (!typed) fail("accepts any value (strict mode needs a type)");
  return out;
}

function closeObject(
  node: JsonSchema,
  path: string[],
  depth: number,
  state: State,
  fail: (what: string) => never,
): JsonSchema {
  if (node.additionalProperties !== undefined && node.additionalProperties !== false)
    fail("is an open object (additionalProperties)");
  if (depth > LIMITS.depth) fail(`nests deeper than ${LIMITS.depth} levels`);
  const properties = node.properties === undefined ? {} : node.properties;
  if (!isSchemaObject(properties)) return fail("has malformed properties");
  const required = Array.isArray(node.required) ? node.required : [];
  const names = Object.keys(properties);
  const undeclared = required.find((name) => typeof name !== "string" || !names.includes(name));
  if (undeclared !== undefined) fail(`requires ${JSON.stringify(undeclared)} without declaring it`);
  if ((state.properties += names.length) > LIMITS.properties)
    fail(`pushes the property count past ${LIMITS.properties}`);
  const out: JsonSchema = {};
  for (const name of names) {
    const child = strictify(properties[name], [...path, "properties", name], depth + 1, state);
    out[name] = required.includes(name) ? child : nullable(child, state.root);
  }
  return { properties: out, required: names, additionalProperties: false };
}

/** Strict mode has no optional properties: an optional one becomes required but may be null. */
export function nullable(schema: JsonSchema, root: JsonSchema): JsonSchema {
  if (acceptsNull(schema, root)) return schema;
  const types = typesOf(schema);
  const simple = types !== undefined && !("const" in schema) && !("$ref" in schema) && !("anyOf" in schema);
  if (simple) {
    const out: JsonSchema = { ...schema, type: [...types, "null"] };
    if (Array.isArray(schema.enum)) out.enum = [...schema.enum, null];
    return out;
  }
  const plainUnion =
    Array.isArray(schema.anyOf) &&
    types === undefined &&
    !("const" in schema) &&
    !("enum" in schema) &&
    !("$ref" in schema);
  if (plainUnion) return { ...schema, anyOf: [...(schema.anyOf as unknown[]), { type: "null" }] };
  return { anyOf: [schema, { type: "null" }] };
}
