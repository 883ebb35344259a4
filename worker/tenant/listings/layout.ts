/**
 * The layout of a tenant's precomputed listings (tenants/<name>.listings.generated.txt): one line of
 * JSON, the header, then the body: per section (each format's `GET /v1/tools/:format` and the
 * `GET /v1/tools` listing) its whole answer as today's code serialises it, one after the other. The
 * header says where each tool's entry lies in its section, so a caller's allow-list and an MCP page
 * are joined from entries without parsing the rest. Text, not JSON: the whole answer is served as a
 * slice, never parsed.
 */

/** GET /v1/tools (toolgate's own shape, with effective policies); the other sections are format names. */
export const INFO_SECTION = "tools";

export interface Section {
  /** Where the section starts in the body, and its length. */
  at: number;
  length: number;
  /**
   * Where its spans are in the body: a JSON array, per tool (registry order), of its entry's
   * start and end in the section.
   */
  spans: { at: number; length: number };
  /** Indexes of the tools in the section's "skipped" list (a format's schema subset cannot express them). */
  skipped: number[];
}

export interface Header {
  layout: number;
  /** listingsKey() of what the listings were computed from (the tenant's tools and their order included). */
  key: string;
  /** How many tools the tenant has. */
  count: number;
  /** MCP 2026-07-28 execution.taskSupport of the tools that may run as tasks (the rest are "forbidden"). */
  tasks: Record<string, "optional" | "required">;
  sections: Record<string, Section>;
}

/** One tool's entry in a section: its JSON text, and whether it is a skipped entry rather than a definition. */
export interface Entry {
  text: string;
  skipped: boolean;
}

/**
 * The answer of these entries, as JSON.stringify writes `{ tools, skipped? }`; `spans` (if given)
 * receives each entry's start and end. The build and the Worker's allow-list joins share it.
 */
export function joinEntries(entries: readonly Entry[], spans?: number[]): string {
  let text = '{"tools":[';
  let first = true;
  const put = (entry: Entry, i: number) => {
    if (!first) text += ",";
    first = false;
    if (spans) spans[2 * i] = text.length;
    text += entry.text;
    if (spans) spans[2 * i + 1] = text.length;
  };
  for (const [i, entry] of entries.entries()) if (!entry.skipped) put(entry, i);
  text += "]";
  if (entries.some((entry) => entry.skipped)) {
    text += ',"skipped":[';
    first = true;
    for (const [i, entry] of entries.entries()) if (entry.skipped) put(entry, i);
    text += "]";
  }
  return `${text}}`;
}

/**
 * The file's text: the header line, then the sections' texts, then their spans (parsed only when a
 * listing is joined from entries: the whole answer needs none).
 */
export function renderLayout(
  header: Omit<Header, "sections">,
  sections: Record<string, { text: string; spans: number[]; skipped: number[] }>,
): string {
  let body = "";
  const placed: Record<string, Section> = {};
  for (const [name, { text, skipped }] of Object.entries(sections)) {
    placed[name] = { at: body.length, length: text.length, spans: { at: 0, length: 0 }, skipped };
    body += text;
  }
  for (const [name, { spans }] of Object.entries(sections)) {
    const text = JSON.stringify(spans);
    placed[name]!.spans = { at: body.length, length: text.length };
    body += text;
  }
  return `${JSON.stringify({ ...header, sections: placed })}\n${body}`;
}

/** A file read back: its header and body, and the spans of the sections read so far. */
export interface Layout {
  header: Header;
  body: string;
  spans: Map<string, number[] | undefined>;
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const within = (body: string, at: unknown, length: unknown) =>
  isCount(at) && isCount(length) && at + length <= body.length;

/**
 * The header and body of a file's text, checked against the sections the Worker will read;
 * undefined when the text is not a file of this layout (the Worker then builds its listings).
 */
export function readLayout(text: string, layout: number, sectionNames: readonly string[]): Layout | undefined {
  const end = text.indexOf("\n");
  if (end < 0) return undefined;
  let header: Header;
  try {
    header = JSON.parse(text.slice(0, end)) as Header;
  } catch {
    return undefined;
  }
  const body = text.slice(end + 1);
  if (
    header?.layout !== layout ||
    typeof header.key !== "string" ||
    !isCount(header.count) ||
    typeof header.tasks !== "object"
  )
    return undefined;
  for (const name of sectionNames) {
    const section = header.sections?.[name];
    if (
      !section ||
      !within(body, section.at, section.length) ||
      !within(body, section.spans?.at, section.spans?.length)
    )
      return undefined;
    if (!Array.isArray(section.skipped) || !section.skipped.every((i) => isCount(i) && i < header.count))
      return undefined;
  }
  return { header, body, spans: new Map() };
}

/** A section's spans, parsed and checked on first use; undefined when they are not what the header promises. */
function spansOf(layout: Layout, name: string): number[] | undefined {
  if (layout.spans.has(name)) return layout.spans.get(name);
  const section = layout.header.sections[name]!;
  let spans: unknown;
  try {
    spans = JSON.parse(layout.body.slice(section.spans.at, section.spans.at + section.spans.length));
  } catch {
    spans = undefined;
  }
  const valid =
    Array.isArray(spans) &&
    spans.length === 2 * layout.header.count &&
    spans.every((n) => isCount(n) && n <= section.length);
  layout.spans.set(name, valid ? (spans as number[]) : undefined);
  return layout.spans.get(name);
}

/** A section's whole answer (no allow-list): a slice of the body. */
export function sectionText({ header, body }: Layout, name: string): string {
  const section = header.sections[name]!;
  return body.slice(section.at, section.at + section.length);
}

/** Each kept tool's entry in a section (by index, registry order); undefined when the section's spans are unusable. */
export function entriesOf(layout: Layout, name: string, indexes: readonly number[]): Entry[] | undefined {
  const spans = spansOf(layout, name);
  if (!spans) return undefined;
  const { at, skipped } = layout.header.sections[name]!;
  return indexes.map((i) => ({
    text: layout.body.slice(at + spans[2 * i]!, at + spans[2 * i + 1]!),
    skipped: skipped.includes(i),
  }));
}

/** The indexes of the tools an allow-list keeps (all without one), in registry order. */
export function keptIndexes(names: readonly string[], allowed?: ReadonlySet<string>): number[] {
  const kept: number[] = [];
  for (const [i, name] of names.entries()) if (!allowed || allowed.has(name)) kept.push(i);
  return kept;
}
