import type { JsonValue } from "../json";
import { resultText, type CallResult } from "../result";

/**
 * What a model reads of a result through an SDK adapter: a success's structured output when the tool
 * has one, else its text; a failure's code and message as text (errors are results: the model can act
 * on them, and the SDK's loop goes on).
 */
export function modelValue(result: CallResult): JsonValue {
  if (result.ok && result.output.structured !== undefined) return result.output.structured as JsonValue;
  return resultText(result);
}
