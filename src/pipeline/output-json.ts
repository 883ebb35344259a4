import { joinPath } from "../json-path";

/** Why a value is not JSON: what and where. */
export class NotJson {
  constructor(readonly problem: string) {}
}

/**
 * Tool output as JSON text (undefined for undefined, a function or a symbol, as JSON.stringify has
 * it), or why it cannot be: JSON.stringify writes NaN and ±Infinity as null without a word, and throws
 * on a BigInt or a cycle without saying where. Runs on every call, so the walk that names the culprit
 * runs only when stringify threw or its text holds a null that may stand for a non-finite number.
 */
export function toJsonText(value: unknown): string | undefined | NotJson {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return new NotJson(
      findNonJson(value) ?? `JSON.stringify failed (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (text?.includes("null")) {
    const problem = findNonJson(value);
    if (problem) return new NotJson(problem);
  }
  return text;
}

const where = (path: string) => (path === "" ? "the top level" : path);

/**
 * The first part of a value that JSON.stringify would drop silently or refuse: a non-finite number,
 * a BigInt or a cycle, with its path. Follows stringify's own reading (toJSON, boxed numbers, skipped
 * undefined and functions), so it points at what stringify saw.
 */
export function findNonJson(root: unknown): string | undefined {
  const ancestors = new Set<object>();
  const visit = (input: unknown, key: string, path: string): string | undefined => {
    let value = input;
    if (
      value !== null &&
      (typeof value === "object" || typeof value === "bigint") &&
      typeof (value as { toJSON?: unknown }).toJSON === "function"
    ) {
      value = (value as { toJSON(key: string): unknown }).toJSON(key);
    }
    if (value instanceof Number) value = Number(value);
    if (typeof value === "number")
      return Number.isFinite(value) ? undefined : `${value} at ${where(path)} (JSON numbers must be finite)`;
    if (typeof value === "bigint") return `a BigInt at ${where(path)}`;
    if (value === null || typeof value !== "object") return undefined;
    if (ancestors.has(value)) return `a cycle at ${where(path)} (a value that contains itself)`;
    ancestors.add(value);
    try {
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const found = visit(value[i], String(i), joinPath(path, i));
          if (found) return found;
        }
        return undefined;
      }
      for (const name of Object.keys(value)) {
        const found = visit((value as Record<string, unknown>)[name], name, joinPath(path, name));
        if (found) return found;
      }
      return undefined;
    } finally {
      ancestors.delete(value);
    }
  };
  try {
    return visit(root, "", "");
  } catch (error) {
    // A throwing toJSON, or nesting deeper than this walk's stack.
    return `it could not be read as JSON (${error instanceof Error ? error.message : String(error)})`;
  }
}
