import * as v from "valibot";

/** A configuration field naming a tool: one schema (and message) for every block that names tools. */
export const toolName = v.pipe(
  v.string(),
  v.regex(/^[a-zA-Z0-9_-]{1,64}$/, "must be a tool name (letters, digits, _ and -, at most 64)"),
);
