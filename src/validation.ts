import * as v from "valibot";
import type { ValidationIssue } from "./errors";

export type Validation<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };
export type Validator<T> = (value: unknown) => Validation<T>;

/** "a.b[2].c" from a valibot issue path ("" for the root). */
function pathOf(issue: v.BaseIssue<unknown>): string {
  let out = "";
  for (const item of issue.path ?? []) {
    const key = item.key;
    if (typeof key === "number") out += `[${key}]`;
    else out += out === "" ? String(key) : `.${String(key)}`;
  }
  return out;
}

/** A Validator from a valibot schema; issues become path + message pairs a model can act on. */
export function valibotValidator<S extends v.GenericSchema>(schema: S): Validator<v.InferOutput<S>> {
  return (value) => {
    const parsed = v.safeParse(schema, value);
    if (parsed.success) return { ok: true, value: parsed.output };
    return { ok: false, issues: parsed.issues.map((issue) => ({ path: pathOf(issue), message: issue.message })) };
  };
}

/** One line listing every issue, for error messages. */
export function describeIssues(issues: readonly ValidationIssue[]): string {
  // One issue is the common case: no array and no join for it.
  if (issues.length === 1) return describeIssue(issues[0]!);
  return issues.map(describeIssue).join("; ");
}

function describeIssue(issue: ValidationIssue): string {
  return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
}

/** text without one trailing full stop, for messages that go on after it. */
export function withoutFinalStop(text: string): string {
  return text.endsWith(".") ? text.slice(0, -1) : text;
}
