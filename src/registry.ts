import type { Tool } from "./tool";

/** A tenant's tools by name. Plain data; lookups are one Map.get. */
export interface Registry {
  readonly size: number;
  get(name: string): Tool | undefined;
  has(name: string): boolean;
  list(): readonly Tool[];
  /** A new registry with more tools (names must stay unique). */
  with(tools: readonly Tool[]): Registry;
  /** A new registry with only the tools the predicate keeps. */
  filter(keep: (tool: Tool) => boolean): Registry;
}

export function createRegistry(tools: readonly Tool[] = []): Registry {
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    if (byName.has(tool.name)) throw new TypeError(`Duplicate tool name "${tool.name}"`);
    byName.set(tool.name, tool);
  }
  const list = Object.freeze([...byName.values()]);
  return Object.freeze({
    size: list.length,
    get: (name: string) => byName.get(name),
    has: (name: string) => byName.has(name),
    list: () => list,
    with: (more: readonly Tool[]) => createRegistry([...list, ...more]),
    filter: (keep: (tool: Tool) => boolean) => createRegistry(list.filter(keep)),
  });
}
