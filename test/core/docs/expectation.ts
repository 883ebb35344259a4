/**
 * What a shell example says it prints: a comment `# → [status] [value]` after the commands it is
 * about, continued on comment lines indented by two or more spaces (`#   …`). The status is the
 * HTTP status of the step's last curl. The value is either JSON with ellipses, matched in substance
 * against a JSON value the step printed, or text with ellipses that must occur in what it printed:
 *
 * - an object shows fields that must be there (others may be too);
 * - an array shows its items in order; with a `…` item, other items may come between;
 * - `…` alone (or `…words…`) as a value stands for any value; inside a string, for any text.
 */
export interface Expectation {
  /** 1-based line of the `# →` comment within its block. */
  line: number;
  /** The expectation as written, for messages. */
  text: string;
  status?: number;
  shape?: Shape;
  /** Text that must occur in the step's output (`…` matches any text). */
  pattern?: RegExp;
}

/** A parsed expected value. */
export type Shape =
  | { kind: "any" }
  | { kind: "object"; fields: [string, Shape][] }
  | { kind: "array"; items: Shape[]; open: boolean }
  | { kind: "string"; shown: string; pattern?: RegExp }
  | { kind: "literal"; value: number | boolean | null };

const ARROW = /^#\s*→\s?(.*)$/;
const CONTINUED = /^#\s{2,}(\S.*)$/;

/** The expectations of a block's body, each with the 0-based index of its first line. */
export function expectationsOf(body: string): { index: number; expectation: Expectation }[] {
  const lines = body.split("\n");
  const found: { index: number; expectation: Expectation }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const arrow = ARROW.exec(lines[i]!.trim());
    if (!arrow) continue;
    const start = i;
    let text = arrow[1]!.trim();
    while (i + 1 < lines.length && CONTINUED.test(lines[i + 1]!.trim()) && !ARROW.test(lines[i + 1]!.trim())) {
      text += CONTINUED.exec(lines[++i]!.trim())![1];
    }
    found.push({ index: start, expectation: parseExpectation(text, start + 1) });
  }
  return found;
}

/** Parses `[status] [value]`; a syntax error names the line. */
export function parseExpectation(text: string, line: number): Expectation {
  const expectation: Expectation = { line, text };
  let rest = text;
  const status = /^(\d{3})(?:\s+|$)(.*)$/.exec(rest);
  if (status) {
    expectation.status = Number(status[1]);
    rest = status[2]!.trim();
  }
  if (rest.startsWith("{") || rest.startsWith("[")) {
    try {
      expectation.shape = new LooseJson(rest).document();
    } catch (error) {
      throw new Error(
        `line ${line}: the expected value is not JSON with ellipses: ${(error as Error).message}\n  ${text}`,
      );
    }
  } else if (rest) {
    expectation.pattern = wildcard(rest);
  }
  return expectation;
}

/** A regular expression for text where `…` stands for any text (the rest taken literally). */
function wildcard(text: string): RegExp {
  return new RegExp(
    text
      .split("…")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("[\\s\\S]*"),
  );
}

/** A recursive-descent reader of JSON in which `…` (or `…words…`) may stand for values and items. */
class LooseJson {
  private at = 0;
  constructor(private readonly text: string) {}

  document(): Shape {
    const shape = this.value();
    this.space();
    if (this.at < this.text.length) this.fail("text after the value");
    return shape;
  }

  private value(): Shape {
    this.space();
    const c = this.text[this.at];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') {
      const value = this.string();
      return value.includes("…")
        ? { kind: "string", shown: value, pattern: new RegExp(`^${wildcard(value).source}$`) }
        : { kind: "string", shown: value };
    }
    if (c === "…") return this.ellipsis();
    const literal = /^(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)/.exec(this.text.slice(this.at));
    if (!literal) this.fail("a value");
    this.at += literal![0].length;
    return { kind: "literal", value: JSON.parse(literal![0]) as number | boolean | null };
  }

  private object(): Shape {
    const fields: [string, Shape][] = [];
    this.at++;
    this.space();
    if (this.take("}")) return { kind: "object", fields };
    do {
      this.space();
      if (this.text[this.at] === "…") {
        this.ellipsis(); // other fields: always allowed
        this.space();
        continue;
      }
      if (this.text[this.at] !== '"') this.fail("a field name");
      const key = this.string();
      this.space();
      if (!this.take(":")) this.fail('":"');
      fields.push([key, this.value()]);
      this.space();
    } while (this.take(","));
    this.space();
    if (!this.take("}")) this.fail('"," or "}"');
    return { kind: "object", fields };
  }

  private array(): Shape {
    const items: Shape[] = [];
    let open = false;
    this.at++;
    this.space();
    if (this.take("]")) return { kind: "array", items, open };
    do {
      const item = this.value();
      if (item.kind === "any") open = true;
      else items.push(item);
      this.space();
    } while (this.take(","));
    if (!this.take("]")) this.fail('"," or "]"');
    return { kind: "array", items, open };
  }

  private ellipsis(): Shape {
    this.at++;
    const words = /^[\w\s-]*…/.exec(this.text.slice(this.at)); // `…records…`
    if (words) this.at += words[0].length;
    return { kind: "any" };
  }

  private string(): string {
    const match = /^"(?:[^"\\]|\\.)*"/.exec(this.text.slice(this.at));
    if (!match) this.fail("a string");
    this.at += match![0].length;
    return JSON.parse(match![0]) as string;
  }

  private space(): void {
    while (/\s/.test(this.text[this.at] ?? "")) this.at++;
  }

  private take(char: string): boolean {
    if (this.text[this.at] !== char) return false;
    this.at++;
    return true;
  }

  private fail(what: string): never {
    throw new Error(`expected ${what} at column ${this.at + 1}: ${this.text.slice(this.at, this.at + 30)}`);
  }
}

/** Where `actual` departs from `shape` (a path and what differs), or undefined when it matches. */
export function mismatch(shape: Shape, actual: unknown, path = "$"): string | undefined {
  switch (shape.kind) {
    case "any":
      return undefined;
    case "literal":
      return actual === shape.value
        ? undefined
        : `${path}: expected ${JSON.stringify(shape.value)}, got ${brief(actual)}`;
    case "string":
      if (typeof actual !== "string") return `${path}: expected a string, got ${brief(actual)}`;
      if (shape.pattern ? shape.pattern.test(actual) : actual === shape.shown) return undefined;
      return `${path}: expected ${JSON.stringify(shape.shown)}, got ${brief(actual)}`;
    case "object": {
      if (typeof actual !== "object" || actual === null || Array.isArray(actual))
        return `${path}: expected an object, got ${brief(actual)}`;
      for (const [key, field] of shape.fields) {
        if (!(key in actual)) return `${path}: no field "${key}" in ${brief(actual)}`;
        const inner = mismatch(field, (actual as Record<string, unknown>)[key], `${path}.${key}`);
        if (inner) return inner;
      }
      return undefined;
    }
    case "array": {
      if (!Array.isArray(actual)) return `${path}: expected an array, got ${brief(actual)}`;
      if (!shape.open) {
        if (actual.length !== shape.items.length)
          return `${path}: expected ${shape.items.length} items, got ${actual.length} (write … for more)`;
        for (const [i, item] of shape.items.entries()) {
          const inner = mismatch(item, actual[i], `${path}[${i}]`);
          if (inner) return inner;
        }
        return undefined;
      }
      let next = 0; // the items shown, in order, each matching a later item than the one before
      for (const [i, item] of shape.items.entries()) {
        while (next < actual.length && mismatch(item, actual[next]) !== undefined) next++;
        if (next === actual.length)
          return `${path}: no item, in order, matches the expected item ${i} (${path}[${i}] of the expectation)`;
        next++;
      }
      return undefined;
    }
  }
}

/**
 * The JSON values a step printed: every balanced `{…}` or `[…]` span that parses, so answers printed
 * back to back, after headers (`curl -i`) or in SSE `data:` lines are each found.
 */
export function jsonValuesIn(output: string): unknown[] {
  const values: unknown[] = [];
  for (let at = 0; at < output.length; at++) {
    if (output[at] !== "{" && output[at] !== "[") continue;
    const end = balancedEnd(output, at);
    if (end === undefined) continue;
    try {
      values.push(JSON.parse(output.slice(at, end)));
      at = end - 1;
    } catch {
      // not JSON (prose such as "Error [conflict]"): look further in
    }
  }
  return values;
}

/** Where the bracket opened at `start` closes (strings skipped), or undefined if it never does. */
function balancedEnd(text: string, start: number): number | undefined {
  let depth = 0;
  for (let at = start; at < text.length; at++) {
    const c = text[at];
    if (c === '"') {
      for (at++; at < text.length && text[at] !== '"'; at++) if (text[at] === "\\") at++;
    } else if (c === "{" || c === "[") depth++;
    else if ((c === "}" || c === "]") && --depth === 0) return at + 1;
  }
  return undefined;
}

/** Why `output` (with the step's curl statuses) does not meet `expectation`, or undefined when it does. */
export function unmet(expectation: Expectation, output: string, statuses: number[]): string | undefined {
  if (expectation.status !== undefined && statuses.at(-1) !== expectation.status) {
    const got = statuses.at(-1) ?? "no response (no curl ran)";
    return `expected status ${expectation.status}, the step's last curl got ${got}`;
  }
  if (expectation.pattern && !expectation.pattern.test(output))
    return `the output does not contain ${JSON.stringify(expectation.text)}`;
  if (expectation.shape) {
    const values = jsonValuesIn(output);
    if (values.length === 0) return "the output holds no JSON value";
    const reasons = values.map((value) => mismatch(expectation.shape!, value));
    if (reasons.some((reason) => reason === undefined)) return undefined;
    return reasons.at(-1);
  }
  return undefined;
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
