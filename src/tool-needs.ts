import { parseEgressEntry } from "./egress";

/**
 * What a tool declares about itself besides its schemas: tags (a host offers tools by tag) and what it
 * needs from the host (secrets by name, origins to fetch). Plain data, checked when the tool is defined
 * so a typo fails at build time with the tool's name, never at a call.
 */

/** What a tool needs to run: the host checks these against its configuration before serving it. */
export interface ToolNeeds {
  /** Names of the secrets run() reads from ctx.secrets. */
  readonly secrets?: readonly string[];
  /** Origins ("https://api.example.com") or hosts ("api.example.com") its ctx.fetch calls reach. */
  readonly egress?: readonly string[];
}

export const TAG_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** The same names a tenant's `secrets` map uses. */
const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_ENTRIES = 64;

function list(value: unknown, tool: string, field: string): string[] {
  if (!Array.isArray(value) || value.length > MAX_ENTRIES || value.some((item) => typeof item !== "string")) {
    throw new TypeError(`Tool "${tool}": invalid ${field}: must be a list of at most ${MAX_ENTRIES} strings`);
  }
  const seen = new Set<string>();
  value.forEach((item: string, i) => {
    if (seen.has(item)) throw new TypeError(`Tool "${tool}": invalid ${field}[${i}]: "${item}" is listed twice`);
    seen.add(item);
  });
  return value as string[];
}

/** Tags, checked: lowercase letters, digits, _ and -, at most 32 each. Throws a TypeError naming the tool. */
export function checkTags(tool: string, tags: unknown): readonly string[] {
  const checked = list(tags, tool, "tags");
  checked.forEach((tag, i) => {
    if (!TAG_PATTERN.test(tag))
      throw new TypeError(`Tool "${tool}": invalid tags[${i}]: "${tag}" must match ${TAG_PATTERN}`);
  });
  return Object.freeze([...checked]);
}

/**
 * Needs, checked: secret names and egress entries as a tenant's configuration writes them.
 * Throws a TypeError naming the tool.
 */
export function checkNeeds(tool: string, needs: unknown): ToolNeeds {
  if (typeof needs !== "object" || needs === null || Array.isArray(needs))
    throw new TypeError(`Tool "${tool}": invalid needs: must be an object`);
  const { secrets, egress, ...rest } = needs as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined)
    throw new TypeError(`Tool "${tool}": invalid needs.${unknown}: only "secrets" and "egress" are known`);
  const out: { secrets?: readonly string[]; egress?: readonly string[] } = {};
  if (secrets !== undefined) {
    const names = list(secrets, tool, "needs.secrets");
    names.forEach((name, i) => {
      if (!SECRET_NAME.test(name))
        throw new TypeError(
          `Tool "${tool}": invalid needs.secrets[${i}]: "${name}" must be a secret's name (letters, digits, _)`,
        );
    });
    out.secrets = Object.freeze([...names]);
  }
  if (egress !== undefined) {
    const entries = list(egress, tool, "needs.egress");
    entries.forEach((entry, i) => {
      const parsed = parseEgressEntry(entry);
      if (typeof parsed === "string") throw new TypeError(`Tool "${tool}": invalid needs.egress[${i}]: ${parsed}`);
    });
    out.egress = Object.freeze([...entries]);
  }
  return Object.freeze(out);
}
