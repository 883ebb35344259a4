import type { ValidationIssue } from "../errors";
import { joinPath } from "../json-path";

/**
 * Numbers JSON cannot carry exactly in arguments: a literal that overflows to ±Infinity, and an integer
 * beyond ±(2^53 − 1), which a double silently rounds (9007199254740993 becomes …992). The walks in
 * args.ts flag candidates with isInexactNumber (one comparison); only then do these slower checks run.
 *
 * Where toolgate reads the JSON text (string arguments), it knows each literal: `1e20` is a float the
 * sender wrote as one and passes, `100000000000000000000` is an integer literal and is refused. Arguments
 * that arrive already parsed (Anthropic, Gemini, MCP bodies) have lost their literals, so there every
 * number beyond ±(2^53 − 1) is refused (each such double is an integer, and it may already be rounded).
 */

const MAX_EXACT = Number.MAX_SAFE_INTEGER;

/** True for NaN, ±Infinity and magnitudes beyond 2^53 − 1: the candidates for a closer look. */
export function isInexactNumber(n: number): boolean {
  return !(n <= MAX_EXACT && n >= -MAX_EXACT);
}

/** Longest literal quoted in a message; longer ones are described by their length. */
const MAX_SHOWN = 40;
const RANGE = "beyond ±(2^53−1) (±9007199254740991), the range JSON numbers carry exactly";
const ADVICE = "send it as a string if the tool accepts one";

function describeValue(n: number): string {
  if (Number.isNaN(n)) return "NaN is not a JSON number";
  if (!Number.isFinite(n))
    return `${n} is not a JSON number (a literal too large for one, such as 1e309, reads as ${n})`;
  return `${n} is ${RANGE} (it may already have been rounded); ${ADVICE}`;
}

function describeLiteral(literal: string, n: number): string {
  const long = literal.length > MAX_SHOWN;
  if (!Number.isFinite(n)) {
    const number = long ? `a number of ${literal.length} characters` : literal;
    return `${number} is too large for a JSON number (it overflows to ${n})`;
  }
  const integer = long ? `an integer of ${literal.replace("-", "").length} digits` : `the integer ${literal}`;
  return `${integer} is ${RANGE}; ${ADVICE}`;
}

/** The first number of an already-parsed value that is not exact, as an issue naming its path. */
export function inexactNumberIn(value: unknown): ValidationIssue | undefined {
  const found = findFirst(value, "", (item) => typeof item === "number" && isInexactNumber(item));
  return found && { path: found.path, message: describeValue(found.item as number) };
}

/** Stands in for a refused number while the text is re-read with its literals. */
class Refused {
  constructor(readonly message: string) {}
}

/** Integer literals: no fraction, no exponent. */
const INTEGER_LITERAL = /^-?\d+$/;

/**
 * The first number literal of JSON text that is not exact, as an issue naming its path. Re-parses the
 * text with a reviver that sees each literal (`context.source`; engines without it fall back to the
 * parsed rule).
 */
export function inexactLiteralIn(text: string): ValidationIssue | undefined {
  const revived: unknown = JSON.parse(text, (_key, value: unknown, context?: { source?: string }) => {
    if (typeof value !== "number" || !isInexactNumber(value)) return value;
    const literal = context?.source;
    if (literal === undefined) return new Refused(describeValue(value));
    if (!Number.isFinite(value) || INTEGER_LITERAL.test(literal)) return new Refused(describeLiteral(literal, value));
    return value;
  });
  const found = findFirst(revived, "", (item) => item instanceof Refused);
  return found && { path: found.path, message: (found.item as Refused).message };
}

/** Depth-first search of a JSON tree (the arguments' depth is already bounded). */
function findFirst(
  value: unknown,
  path: string,
  matches: (item: unknown) => boolean,
): { path: string; item: unknown } | undefined {
  if (matches(value)) return { path, item: value };
  if (value === null || typeof value !== "object") return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findFirst(value[i], joinPath(path, i), matches);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const found = findFirst((value as Record<string, unknown>)[key], joinPath(path, key), matches);
    if (found) return found;
  }
  return undefined;
}
