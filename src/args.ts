import type { Limits } from "./options";

export const DEFAULT_LIMITS: Limits = { maxArgumentBytes: 1024 * 1024, maxArgumentDepth: 64 };

export type ArgsCheck =
  /** hasNull: some value is null (OpenAI strict mode sends null for omitted optionals). */
  | { ok: true; value: Record<string, unknown>; hasNull: boolean }
  | { ok: false; code: "invalid_json" | "invalid_arguments"; message: string };

/** Keys that could reach an object's prototype chain in careless code downstream. */
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/**
 * Arguments as a chat format delivered them (raw JSON text or a parsed value) → a plain object, or a
 * reason a model can act on. Bounds size and depth and refuses prototype keys before anything else
 * looks at the value.
 */
export function parseArguments(raw: unknown, limits: Limits): ArgsCheck {
  let value: unknown = raw;
  if (typeof raw === "string") {
    if (raw.length > limits.maxArgumentBytes) return tooLarge(raw.length, limits);
    // Models send "" for functions without parameters.
    if (raw.trim() === "") return { ok: true, value: {}, hasNull: false };
    try {
      value = JSON.parse(raw);
    } catch (error) {
      const reason = error instanceof Error ? error.message : "parse error";
      return { ok: false, code: "invalid_json", message: `Arguments are not valid JSON (${reason}). Send one JSON object.` };
    }
  } else if (raw === undefined) {
    return { ok: true, value: {}, hasNull: false };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return { ok: false, code: "invalid_arguments", message: `Arguments must be a JSON object, got ${kind}.` };
  }
  const budget = { bytes: typeof raw === "string" ? 0 : limits.maxArgumentBytes, hasNull: false };
  const problem = inspect(value, 1, limits, budget, typeof raw !== "string");
  if (problem) return { ok: false, code: "invalid_arguments", message: problem };
  return { ok: true, value: value as Record<string, unknown>, hasNull: budget.hasNull };
}

function tooLarge(size: number, limits: Limits): ArgsCheck {
  return {
    ok: false,
    code: "invalid_arguments",
    message: `Arguments are too large (${size} bytes; the limit is ${limits.maxArgumentBytes}).`,
  };
}

/** Walks the value once: depth, forbidden keys, and (for already-parsed input) size. */
function inspect(value: unknown, depth: number, limits: Limits, budget: { bytes: number; hasNull: boolean }, countSize: boolean): string | undefined {
  if (depth > limits.maxArgumentDepth) return `Arguments are nested too deeply (more than ${limits.maxArgumentDepth} levels).`;
  if (countSize) {
    budget.bytes -= 8;
    if (budget.bytes < 0) return `Arguments are too large (the limit is ${limits.maxArgumentBytes} bytes).`;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      if (item !== null && typeof item === "object") {
        const problem = inspect(item, depth + 1, limits, budget, countSize);
        if (problem) return problem;
      } else if (countSize && typeof item === "string") {
        budget.bytes -= item.length;
        if (budget.bytes < 0) return `Arguments are too large (the limit is ${limits.maxArgumentBytes} bytes).`;
      }
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return "Arguments must contain only JSON values.";
  for (const key in value as Record<string, unknown>) {
    if (FORBIDDEN_KEYS.has(key)) return `Arguments may not contain the key "${key}".`;
    const item = (value as Record<string, unknown>)[key];
    if (countSize) budget.bytes -= key.length + (typeof item === "string" ? item.length : 0);
    if (countSize && budget.bytes < 0) return `Arguments are too large (the limit is ${limits.maxArgumentBytes} bytes).`;
    if (item === null) {
      budget.hasNull = true;
    } else if (typeof item === "object") {
      const problem = inspect(item, depth + 1, limits, budget, countSize);
      if (problem) return problem;
    } else if (typeof item === "function" || typeof item === "symbol" || typeof item === "bigint") {
      return `Arguments must contain only JSON values (found a ${typeof item} at "${key}").`;
    }
  }
  // JSON.parse defines "__proto__" as an own property, which for…in does see; this catches non-enumerable tricks.
  if (Object.prototype.hasOwnProperty.call(value, "__proto__")) return 'Arguments may not contain the key "__proto__".';
  return undefined;
}
