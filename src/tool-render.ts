import { isPlainObject } from "./json";

/**
 * How a console shows a tool's calls and results: presentation only. Never part of the tool's hash
 * or of what a model sees, and never markup: the call summary is text, the result a named layout.
 */
export interface ToolRender {
  /**
   * A one-line summary of a call, e.g. "Add {a} and {b}": each `{name}` is replaced by that top-level
   * argument as text (strings as they are, other values as JSON, each cut to 80 characters).
   */
  readonly call?: string;
  /** How a successful result is laid out. */
  readonly result?: ResultLayout;
}

/**
 * `json`: the structured output as a collapsible tree (the default); `table`: a list of objects (the
 * structured output, or its only list-valued field) as rows; `markdown`: the text content through a
 * small renderer that emits no HTML of its own; `text`: the text content as it is.
 */
export const RESULT_LAYOUTS = ["json", "table", "markdown", "text"] as const;
export type ResultLayout = (typeof RESULT_LAYOUTS)[number];

const MAX_TEMPLATE = 200;
const MAX_VALUE = 80;

/** The render hints, checked when the tool is defined. Throws a TypeError naming the tool. */
export function checkRender(tool: string, render: unknown): ToolRender {
  if (typeof render !== "object" || render === null || Array.isArray(render))
    throw new TypeError(`Tool "${tool}": invalid render: must be an object`);
  const { call, result, ...rest } = render as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined)
    throw new TypeError(`Tool "${tool}": invalid render.${unknown}: only "call" and "result" are known`);
  if (call !== undefined && (typeof call !== "string" || call.length === 0 || call.length > MAX_TEMPLATE)) {
    throw new TypeError(`Tool "${tool}": invalid render.call: must be a string of 1 to ${MAX_TEMPLATE} characters`);
  }
  if (result !== undefined && !RESULT_LAYOUTS.includes(result as ResultLayout)) {
    throw new TypeError(`Tool "${tool}": invalid render.result: must be one of ${RESULT_LAYOUTS.join(", ")}`);
  }
  return Object.freeze({
    ...(call === undefined ? {} : { call: call as string }),
    ...(result === undefined ? {} : { result: result as ResultLayout }),
  });
}

/** One argument as summary text: strings as they are, the rest as JSON, cut with an ellipsis. */
function valueText(value: unknown): string {
  const text = typeof value === "string" ? value : value === undefined ? "" : (JSON.stringify(value) ?? "");
  const flat = text.replace(/\s+/g, " ");
  return flat.length > MAX_VALUE ? `${flat.slice(0, MAX_VALUE - 1)}…` : flat;
}

/**
 * The defaults a tool's input schema declares for its top-level arguments (`properties.<name>.default`),
 * which a call that leaves them out runs with: { title: "Sample", hz: 440 }.
 */
export function schemaDefaults(schema: unknown): Record<string, unknown> {
  const properties = isPlainObject(schema) && isPlainObject(schema.properties) ? schema.properties : {};
  // fromEntries defines own properties: a property named "__proto__" stays a name like any other.
  return Object.fromEntries(
    Object.entries(properties).flatMap(([name, spec]) =>
      isPlainObject(spec) && Object.hasOwn(spec, "default") ? [[name, spec.default]] : [],
    ),
  );
}

/**
 * "Add {a} and {b}" with { a: 2, b: 3 } → "Add 2 and 3". A name the arguments leave out takes its
 * default (see schemaDefaults), else becomes ""; arguments that are not an object give "" for all.
 */
export function callSummary(template: string, args: unknown, defaults: Readonly<Record<string, unknown>> = {}): string {
  const argument = (name: string): unknown => {
    if (!isPlainObject(args)) return undefined;
    if (Object.hasOwn(args, name)) return args[name];
    return Object.hasOwn(defaults, name) ? defaults[name] : undefined;
  };
  return template.replace(/\{([A-Za-z0-9_$-]{1,64})\}/g, (_, name: string) => valueText(argument(name)));
}
