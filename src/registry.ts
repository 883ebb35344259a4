import type { Tool } from "./tool";

/**
 * A tool known by its name before it exists: built on first use (a tenant's declared adapter tools,
 * so a call to one of a thousand builds one). `build` may throw; the registry keeps the error and
 * throws it again on every later use.
 */
export interface ToolEntry {
  readonly name: string;
  build(): Tool;
}

/** A tenant's tools by name. Plain data; lookups are one Map.get (and one build, the first time). */
export interface Registry {
  readonly size: number;
  /** The tool, built if it was an entry (throws what its build threw). */
  get(name: string): Tool | undefined;
  has(name: string): boolean;
  /** Every name, in order, without building anything. */
  names(): readonly string[];
  /** Every tool, in order: builds every entry not built yet. */
  list(): readonly Tool[];
  /** A new registry with more tools (names must stay unique). */
  with(tools: readonly (Tool | ToolEntry)[]): Registry;
  /** A new registry with only the tools the predicate keeps. */
  filter(keep: (tool: Tool) => boolean): Registry;
}

/** One name's slot: the tool once built, or the error its build threw. Shared by registries made with `with`. */
interface Slot {
  readonly name: string;
  tool?: Tool;
  error?: unknown;
  build?: () => Tool;
}

const isEntry = (item: Tool | ToolEntry | Slot): item is ToolEntry =>
  typeof (item as ToolEntry).build === "function" && !("run" in item);

function slotOf(item: Tool | ToolEntry | Slot): Slot {
  if (isEntry(item)) return { name: item.name, build: () => item.build() };
  return "run" in item ? { name: item.name, tool: item } : item;
}

function toolOf(slot: Slot): Tool {
  if (slot.tool) return slot.tool;
  if (slot.error === undefined) {
    try {
      slot.tool = slot.build!();
      if (slot.tool.name !== slot.name)
        throw new TypeError(`The entry "${slot.name}" built a tool named "${slot.tool.name}"`);
      delete slot.build;
      return slot.tool;
    } catch (error) {
      delete slot.tool;
      slot.error = error;
    }
  }
  throw slot.error;
}

export function createRegistry(tools: readonly (Tool | ToolEntry)[] = []): Registry {
  return registryOf(tools.map(slotOf));
}

function registryOf(items: readonly Slot[]): Registry {
  const byName = new Map<string, Slot>();
  for (const slot of items) {
    if (byName.has(slot.name)) throw new TypeError(`Duplicate tool name "${slot.name}"`);
    byName.set(slot.name, slot);
  }
  const slots = [...byName.values()];
  const names = Object.freeze(slots.map((slot) => slot.name));
  let list: readonly Tool[] | undefined;
  const all = () => (list ??= Object.freeze(slots.map(toolOf)));
  return Object.freeze({
    size: slots.length,
    get: (name: string) => {
      const slot = byName.get(name);
      return slot && toolOf(slot);
    },
    has: (name: string) => byName.has(name),
    names: () => names,
    list: all,
    with: (more: readonly (Tool | ToolEntry)[]) => registryOf([...slots, ...more.map(slotOf)]),
    filter: (keep: (tool: Tool) => boolean) => createRegistry(all().filter(keep)),
  });
}
