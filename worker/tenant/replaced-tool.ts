import type { Registry } from "../../src/registry";
import type { Tool } from "../../src/tool";

/**
 * The registry with one tool in another's place (a caller's bound search or code tool); the rest
 * delegated.
 */
export function withReplaced(registry: Registry, replacement: Tool): Registry {
  return Object.freeze({
    size: registry.size,
    get: (name: string) => (name === replacement.name ? replacement : registry.get(name)),
    has: (name: string) => registry.has(name),
    names: () => registry.names(),
    list: () => registry.list().map((tool) => (tool.name === replacement.name ? replacement : tool)),
    with: (tools: Parameters<Registry["with"]>[0]) => registry.with(tools),
    filter: (keep: Parameters<Registry["filter"]>[0]) => registry.filter(keep),
  });
}
