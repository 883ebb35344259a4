/**
 * JSON Pointers (RFC 6901) as configuration uses them: "/repo", "/owner/name", "/items/0". Only
 * non-empty pointers are accepted here (the whole document is never what a setting means).
 */
import { isPlainObject } from "./json";

const POINTER = /^(\/([^~/]|~[01])*)+$/;
/** Longest pointer a configuration may hold. */
const MAX_POINTER_CHARS = 256;

export function isJsonPointer(text: string): boolean {
  return text.length <= MAX_POINTER_CHARS && POINTER.test(text);
}

/** The reference tokens of a valid pointer, unescaped ("~1" is "/", "~0" is "~"). */
export function pointerTokens(pointer: string): string[] {
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** The value a pointer names inside `value`, or undefined when any step is missing. */
export function resolvePointer(value: unknown, pointer: string): unknown {
  let at = value;
  for (const token of pointerTokens(pointer)) {
    if (Array.isArray(at)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      at = at[Number(token)];
    } else if (isPlainObject(at) && Object.hasOwn(at, token)) {
      at = at[token];
    } else {
      return undefined;
    }
  }
  return at;
}

/**
 * Why a pointer cannot name a value that a JSON Schema admits, or undefined when it can (or when the
 * schema does not say: no `properties` or `items` at some step). Each step must be a declared property,
 * or an index into an array schema.
 */
export function pointerMissesSchema(schema: unknown, pointer: string): string | undefined {
  let at = schema;
  let path = "";
  for (const token of pointerTokens(pointer)) {
    if (!isPlainObject(at)) return undefined;
    const properties = at.properties;
    if (isPlainObject(properties)) {
      if (!Object.hasOwn(properties, token)) {
        const known = Object.keys(properties);
        const where = path === "" ? "the arguments declare" : `"${path}" declares`;
        const declared = known.length > 0 ? `declared: ${known.join(", ")}` : "none declared";
        return `${where} no property "${token}" (${declared})`;
      }
      at = properties[token];
    } else if (at.items !== undefined) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return `"${path}" is an array: "${token}" is not an index`;
      at = at.items;
    } else {
      return undefined;
    }
    path += `/${token}`;
  }
  return undefined;
}
