import { toolError } from "../errors";
import { isPlainObject, type JsonSchema, type JsonValue } from "../json";
import { resolvePointer } from "../json-pointer";
import { jsonSchemaValidator } from "../schema/json-schema";
import { richResult, type RichResult } from "../tool";
import { describeIssues, type Validator } from "../validation";
import type { HttpTool } from "./declarations";

/**
 * What an HTTP tool declares of its answer: `response` picks and renames fields of the upstream's
 * JSON (JSON Pointers), `output` is the JSON Schema the result must match. Checked on every 2xx
 * answer; an answer that is not JSON, lacks a mapped value or does not match is the upstream's
 * fault: an upstream_error naming what did not match (not retried: the same request would get the
 * same shape), never a success.
 */
export interface OutputShape {
  /** The declared output schema, for listings (undefined when only `response` is declared). */
  schema: JsonSchema | undefined;
  /** The result of a 2xx answer read by toToolResult, or the upstream_error to throw. */
  apply(read: RichResult, answer: { type: string; status: number; maxBytes: number }): RichResult;
}

const wrongShape = (upstream: string, message: string, issues: { path: string; message: string }[]) =>
  toolError("upstream_error", `${upstream}'s answer ${message}`, { retryable: false, issues });

/** Every `response` field must be one `output` allows, and every field `output` requires must be mapped. */
function checkFields(fields: readonly string[], schema: JsonSchema, label: string): void {
  const properties = isPlainObject(schema.properties) ? schema.properties : undefined;
  if (properties && schema.additionalProperties === false) {
    for (const field of fields) {
      if (!Object.hasOwn(properties, field)) {
        const declared = Object.keys(properties).join(", ") || "none";
        throw new TypeError(`${label}: invalid response.${field}: not a property of output (declared: ${declared})`);
      }
    }
  }
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const field of required) {
    if (typeof field === "string" && !fields.includes(field))
      throw new TypeError(`${label}: invalid output: it requires "${field}", which response does not map`);
  }
}

/**
 * The shape check of a parsed declaration, or undefined when it declares neither `output`
 * nor `response`. Throws a TypeError naming the field.
 */
export function outputShape(
  decl: Pick<HttpTool, "output" | "response">,
  label: string,
  upstream: string,
): OutputShape | undefined {
  const schema = decl.output as JsonSchema | undefined;
  const mapping = decl.response ? Object.entries(decl.response) : undefined;
  if (!schema && !mapping) return undefined;
  let validate: Validator<unknown> | undefined;
  if (schema) {
    try {
      validate = jsonSchemaValidator(schema, { anyRoot: true });
    } catch (error) {
      throw new TypeError(`${label}: invalid output: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (mapping)
      checkFields(
        mapping.map(([field]) => field),
        schema,
        label,
      );
  }
  return {
    schema,
    apply(read, answer) {
      if (read.structured === undefined) {
        const why = read.truncated
          ? `is larger than maxResponseBytes (${answer.maxBytes} bytes), so its JSON cannot be read`
          : `is not JSON (${answer.type || "no content type"}, HTTP ${answer.status})`;
        throw wrongShape(upstream, `${why}; the tool declares a JSON output`, [{ path: "", message: "not JSON" }]);
      }
      let value: JsonValue = read.structured;
      if (mapping) {
        const picked: Record<string, JsonValue> = {};
        const missing: { path: string; message: string }[] = [];
        for (const [field, pointer] of mapping) {
          const found = pointer === "" ? value : resolvePointer(value, pointer);
          if (found === undefined) missing.push({ path: field, message: `${pointer} is not in the answer` });
          else picked[field] = found as JsonValue;
        }
        if (missing.length > 0)
          throw wrongShape(upstream, `lacks what the tool maps: ${describeIssues(missing)}`, missing);
        value = picked;
      }
      if (validate) {
        const checked = validate(value);
        if (!checked.ok)
          throw wrongShape(
            upstream,
            `does not match the tool's output schema: ${describeIssues(checked.issues)}`,
            checked.issues,
          );
      }
      return mapping ? richResult([{ type: "text", text: JSON.stringify(value) }], value) : read;
    },
  };
}
