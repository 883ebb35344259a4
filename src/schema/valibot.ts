import type * as v from "valibot";
import { toJsonSchema } from "@valibot/to-json-schema";
import type { JsonSchema } from "../json";

/**
 * JSON Schema (draft 2020-12) of a valibot schema: the one source of truth every format's tool
 * definition is derived from. Throws a readable error naming the tool when a construct has no JSON
 * Schema form (dates, functions, transforms that change the type …).
 */
export function valibotToJsonSchema(schema: v.GenericSchema, toolName: string): JsonSchema {
  try {
    const json = toJsonSchema(schema, { target: "draft-2020-12", errorMode: "throw", typeMode: "input" }) as JsonSchema;
    delete json.$schema;
    return json;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new TypeError(`Tool "${toolName}": its schema cannot be expressed as JSON Schema: ${reason}`);
  }
}
