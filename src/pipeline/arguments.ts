import { inexactLiteralIn, inexactNumberIn, isInexactNumber } from "./argument-numbers";
import type { ValidationIssue } from "../errors";
import { describeIssues } from "../validation";
import type { Limits } from "../options";

export const DEFAULT_LIMITS: Limits = { maxArgumentBytes: 1024 * 1024, maxArgumentDepth: 64 };

export type ArgsCheck =
  /** hasNull: some value is null (OpenAI strict mode sends null for omitted optionals). */
  | { ok: true; value: Record<string, unknown>; hasNull: boolean }
  | { ok: false; code: "invalid_json" | "invalid_arguments"; message: string; issues?: ValidationIssue[] };

/** Keys that could reach an object's prototype chain in careless code downstream. */
function isForbiddenKey(key: string): boolean {
  return key === "__proto__" || key === "constructor" || key === "prototype";
}

/**
 * Arguments as a chat format delivered them (raw JSON text or a parsed value) → a plain object, or a
 * reason a model can act on. Bounds size and depth and refuses prototype keys before anything else
 * looks at the value.
 */
export function parseArguments(raw: unknown, limits: Limits): ArgsCheck {
  if (typeof raw === "string") return parseText(raw, limits);
  if (raw === undefined) return { ok: true, value: {}, hasNull: false };
  const kind = objectKind(raw);
  if (kind) return notAnObject(kind);
  const budget = { bytes: limits.maxArgumentBytes, hasNull: false, inexact: false };
  const problem = inspect(raw, 1, limits, budget);
  if (problem) return { ok: false, code: "invalid_arguments", message: problem };
  // Rare: look again, with paths, only when the walk saw a number beyond ±(2^53 − 1) or not finite.
  const inexact = budget.inexact ? inexactNumberIn(raw) : undefined;
  if (inexact) return inexactNumber(inexact);
  return { ok: true, value: raw as Record<string, unknown>, hasNull: budget.hasNull };
}

function parseText(raw: string, limits: Limits): ArgsCheck {
  if (raw.length > limits.maxArgumentBytes) return tooLarge(raw.length, limits);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    // Models send "" for functions without parameters (JSON.parse refuses blank text, so this is the place to look).
    if (raw.trim() === "") return { ok: true, value: {}, hasNull: false };
    const reason = error instanceof Error ? error.message : "parse error";
    return {
      ok: false,
      code: "invalid_json",
      message: `Arguments are not valid JSON (${reason}). Send one JSON object.`,
    };
  }
  const kind = objectKind(value);
  if (kind) return notAnObject(kind);
  const found = inspectParsed(value as object, 1, limits);
  if (typeof found === "string") return { ok: false, code: "invalid_arguments", message: found };
  if (found === 0) return { ok: true, value: value as Record<string, unknown>, hasNull: false };
  // Rare: re-read the text with its literals only when the walk saw a number beyond ±(2^53 − 1) or not finite.
  const inexact = found & INEXACT ? inexactLiteralIn(raw) : undefined;
  if (inexact) return inexactNumber(inexact);
  return { ok: true, value: value as Record<string, unknown>, hasNull: (found & HAS_NULL) !== 0 };
}

/** undefined for a non-array object, else what the value is, for the message. */
function objectKind(value: unknown): string | undefined {
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return undefined;
  return value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

function notAnObject(kind: string): ArgsCheck {
  return { ok: false, code: "invalid_arguments", message: `Arguments must be a JSON object, got ${kind}.` };
}

function inexactNumber(issue: ValidationIssue): ArgsCheck {
  return { ok: false, code: "invalid_arguments", message: `${describeIssues([issue])}.`, issues: [issue] };
}

function tooLarge(size: number, limits: Limits): ArgsCheck {
  return {
    ok: false,
    code: "invalid_arguments",
    message: `Arguments are too large (${size} bytes; the limit is ${limits.maxArgumentBytes}).`,
  };
}

const tooDeep = (limits: Limits) => `Arguments are nested too deeply (more than ${limits.maxArgumentDepth} levels).`;
const overBudget = (limits: Limits) => `Arguments are too large (the limit is ${limits.maxArgumentBytes} bytes).`;
const forbidden = (key: string) => `Arguments may not contain the key "${key}".`;

/** What inspectParsed saw besides problems, as bits. */
const HAS_NULL = 1;
const INEXACT = 2;

/**
 * The walk for JSON.parse output: depth and forbidden keys, whether some property is null and whether
 * some number may not be exact. JSON.parse makes only plain objects and arrays of JSON values, and
 * defines "__proto__" as an own enumerable key, so the prototype, type and hidden-key checks of
 * inspect() cannot find anything here. Returns the problem, or HAS_NULL | INEXACT bits.
 */
function inspectParsed(value: object, depth: number, limits: Limits): string | number {
  if (depth > limits.maxArgumentDepth) return tooDeep(limits);
  let seen = 0;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (item !== null && typeof item === "object") {
        const found = inspectParsed(item, depth + 1, limits);
        if (typeof found === "string") return found;
        seen |= found;
      } else if (typeof item === "number" && isInexactNumber(item)) {
        seen |= INEXACT;
      }
    }
    return seen;
  }
  for (const key in value) {
    if (isForbiddenKey(key)) return forbidden(key);
    const item = (value as Record<string, unknown>)[key];
    if (item === null) {
      seen |= HAS_NULL;
    } else if (typeof item === "object") {
      const found = inspectParsed(item, depth + 1, limits);
      if (typeof found === "string") return found;
      seen |= found;
    } else if (typeof item === "number" && isInexactNumber(item)) {
      seen |= INEXACT;
    }
  }
  return seen;
}

/** What inspect() counts down and notes on its way. */
interface Budget {
  bytes: number;
  hasNull: boolean;
  /** A number beyond ±(2^53 − 1) or not finite was seen: look closer. */
  inexact: boolean;
}

/** Walks an already-parsed value once: depth, size, forbidden keys, and values JSON cannot carry. */
function inspect(value: unknown, depth: number, limits: Limits, budget: Budget): string | undefined {
  if (depth > limits.maxArgumentDepth) return tooDeep(limits);
  budget.bytes -= 8;
  if (budget.bytes < 0) return overBudget(limits);
  if (Array.isArray(value)) {
    for (const item of value) {
      if (item !== null && typeof item === "object") {
        const problem = inspect(item, depth + 1, limits, budget);
        if (problem) return problem;
      } else if (typeof item === "string") {
        budget.bytes -= item.length;
        if (budget.bytes < 0) return overBudget(limits);
      } else if (typeof item === "number") {
        if (isInexactNumber(item)) budget.inexact = true;
      } else if (typeof item === "function" || typeof item === "symbol" || typeof item === "bigint") {
        return `Arguments must contain only JSON values (found a ${typeof item} in an array).`;
      }
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return "Arguments must contain only JSON values.";
  for (const key in value as Record<string, unknown>) {
    if (isForbiddenKey(key)) return forbidden(key);
    const item = (value as Record<string, unknown>)[key];
    budget.bytes -= key.length + (typeof item === "string" ? item.length : 0);
    if (budget.bytes < 0) return overBudget(limits);
    if (item === null) {
      budget.hasNull = true;
    } else if (typeof item === "object") {
      const problem = inspect(item, depth + 1, limits, budget);
      if (problem) return problem;
    } else if (typeof item === "number") {
      if (isInexactNumber(item)) budget.inexact = true;
    } else if (typeof item === "function" || typeof item === "symbol" || typeof item === "bigint") {
      return `Arguments must contain only JSON values (found a ${typeof item} at "${key}").`;
    }
  }
  // for…in sees own "__proto__" keys; this catches non-enumerable tricks in values built in code.
  if (Object.hasOwn(value as object, "__proto__")) return forbidden("__proto__");
  return undefined;
}
