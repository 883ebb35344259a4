import type { JsonSchema } from "../../src/json";

const num = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined;

/** A number's bounds in words: "110 to 1760", "at least 1", "more than 0". */
function bounds(schema: JsonSchema): string | undefined {
  const min = num(schema.minimum);
  const max = num(schema.maximum);
  const above = num(schema.exclusiveMinimum);
  const below = num(schema.exclusiveMaximum);
  const low = min !== undefined ? `${min}` : above !== undefined ? `more than ${above}` : undefined;
  const high = max !== undefined ? `${max}` : below !== undefined ? `less than ${below}` : undefined;
  if (low !== undefined && high !== undefined)
    return min !== undefined && max !== undefined ? `${min} to ${max}` : `${low}, ${high}`;
  if (low !== undefined) return min !== undefined ? `at least ${min}` : low;
  if (high !== undefined) return max !== undefined ? `at most ${max}` : high;
  return undefined;
}

/** A string's or a list's length in words: "1 to 200 characters", "at most 5 items". */
function length(minimum: unknown, maximum: unknown, unit: string): string | undefined {
  const min = num(minimum);
  const max = num(maximum);
  if (min !== undefined && max !== undefined)
    return min === max ? `exactly ${min} ${unit}` : `${min} to ${max} ${unit}`;
  if (min !== undefined && min > 0) return `at least ${min} ${unit}`;
  if (max !== undefined) return `at most ${max} ${unit}`;
  return undefined;
}

/**
 * What the schema demands of a value, in words, for the form to show beside the field: bounds,
 * lengths, a pattern or format, a multiple, and the default the server applies when it is left out.
 */
export function constraintsOf(schema: JsonSchema): string[] {
  const out: string[] = [];
  if (schema.type === "integer") out.push("a whole number");
  const range = bounds(schema);
  if (range) out.push(range);
  if (num(schema.multipleOf) !== undefined) out.push(`a multiple of ${schema.multipleOf}`);
  const chars = length(schema.minLength, schema.maxLength, "characters");
  if (chars) out.push(chars);
  const items = length(schema.minItems, schema.maxItems, "items");
  if (items) out.push(items);
  if (schema.uniqueItems === true) out.push("no repeats");
  if (typeof schema.pattern === "string") out.push(`matching ${schema.pattern}`);
  if (typeof schema.format === "string") out.push(`format ${schema.format}`);
  if (schema.default !== undefined)
    out.push(`default ${typeof schema.default === "string" ? schema.default : JSON.stringify(schema.default)}`);
  return out;
}

/** HTML constraint attributes for the control (the browser's own hints; the core still validates). */
export function constraintAttributes(schema: JsonSchema): Record<string, string> {
  const attrs: Record<string, string> = {};
  const min = num(schema.minimum);
  const max = num(schema.maximum);
  if (min !== undefined) attrs.min = String(min);
  if (max !== undefined) attrs.max = String(max);
  const maxLength = num(schema.maxLength);
  if (maxLength !== undefined) attrs.maxlength = String(maxLength);
  if (schema.default !== undefined && typeof schema.default !== "object") attrs.placeholder = String(schema.default);
  return attrs;
}
