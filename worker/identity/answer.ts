import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "../errors";
import type { Answer } from "../identity-library";

/** The value of the library module's answer, or the ApiError its refusal describes (lazy/refused.ts). */
export function answered<T>(answer: Answer<T>): T {
  if (answer.ok) return answer.value;
  const { status, code, message, headers } = answer.refusal;
  throw new ApiError(status as ContentfulStatusCode, code, message, headers);
}
