import type { JsonSchema } from "../json";
import { acceptsNull, isSchemaObject, resolveRef, typesOf } from "./walk";

/**
 * OpenAI strict mode turns optional properties into required nullable ones, so a strict model sends
 * `null` where it means "not given". This undoes that against the tool's real schema: a null at a key
 * the schema marks optional and whose schema does not accept null is removed, so `v.optional(...)`
 * (and its default) behaves as intended. Everything else is returned untouched; the input is not mutated.
 * Harmless for every other format, so the pipeline can apply it to all calls alike.
 */
export function dropNullOptionals(schema: JsonSchema, value: unknown): unknown {
  return relax(schema, value, schema, 0);
}

const MAX_STEPS = 128;

function relax(node: unknown, value: unknown, root: JsonSchema, depth: number): unknown {
  if (depth > MAX_STEPS || !isSchemaObject(node) || value === null || typeof value !== "object") return value;
  if (typeof node.$ref === "string") {
    const target = resolveRef(root, node.$ref);
    return target ? relax(target, value, root, depth + 1) : value;
  }
  const branches = node.anyOf ?? node.oneOf;
  if (Array.isArray(branches)) {
    // Only when one branch can be meant: guessing between several could drop a meaningful null.
    const fitting = branches.filter((branch) => fits(branch, value, root));
    if (fitting.length === 1) value = relax(fitting[0], value, root, depth + 1);
  }
  if (Array.isArray(value)) {
    if (!isSchemaObject(node.items)) return value;
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const next = relax(node.items, item, root, depth + 1);
      if (next !== item) (out ??= [...value])[i] = next;
    });
    return out ?? value;
  }
  if (!isSchemaObject(node.properties)) return value;
  const properties = node.properties;
  const required = Array.isArray(node.required) ? node.required : [];
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    if (!Object.hasOwn(properties, key)) continue;
    const item = record[key];
    if (item === null && !required.includes(key) && !acceptsNull(properties[key], root)) {
      out ??= { ...record };
      delete out[key];
      continue;
    }
    const next = relax(properties[key], item, root, depth + 1);
    if (next !== item) (out ??= { ...record })[key] = next;
  }
  return out ?? value;
}

/** Could this branch be the one the value was written for? Checks type and const-valued properties. */
function fits(branch: unknown, value: unknown, root: JsonSchema, depth = 0): boolean {
  if (!isSchemaObject(branch)) return false;
  if (typeof branch.$ref === "string") {
    const target = resolveRef(root, branch.$ref);
    return target !== undefined && depth < 16 && fits(target, value, root, depth + 1);
  }
  const types = typesOf(branch);
  const kind = Array.isArray(value) ? "array" : "object";
  if (types && !types.includes(kind)) return false;
  if (kind === "object" && isSchemaObject(branch.properties)) {
    const record = value as Record<string, unknown>;
    for (const [key, prop] of Object.entries(branch.properties)) {
      if (isSchemaObject(prop) && "const" in prop && Object.hasOwn(record, key) && record[key] !== prop.const)
        return false;
    }
  }
  return true;
}
