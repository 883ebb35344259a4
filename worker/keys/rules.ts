import * as v from "valibot";
import { ApiError } from "../errors";

export { RulesFields } from "./rules-fields";

/** A JSON body by its schema, or 400 invalid_body naming the first bad field. */
export async function readBody<S extends v.GenericSchema>(request: Request, schema: S): Promise<v.InferOutput<S>> {
  let value: unknown;
  try {
    value = JSON.parse((await request.text()) || "{}");
  } catch {
    throw new ApiError(400, "invalid_body", "The request body is not JSON.");
  }
  const parsed = v.safeParse(schema, value);
  if (parsed.success) return parsed.output;
  const issue = parsed.issues[0];
  const path = issue.path?.map((item: { key: unknown }) => String(item.key)).join(".") || "(body)";
  throw new ApiError(400, "invalid_body", `${path}: ${issue.message}`);
}
