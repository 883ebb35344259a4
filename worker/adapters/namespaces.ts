import type { McpServer } from "../../src/adapters/mcp";
import { ConfigError } from "../errors";

/** A remote MCP server as the configuration declares it, and where (`mcp[1]`). */
interface Placed {
  where: string;
  declaration: McpServer;
}

/** The local names a server's declared `tools` become; undefined when it exposes every remote tool. */
function localNames(server: McpServer): Set<string> | undefined {
  return server.tools && new Set(server.tools.map((name) => `${server.prefix}${name}`.replace(/[^a-zA-Z0-9_-]/g, "_")));
}

/**
 * Two remote MCP servers' tools share one namespace: servers with the same prefix (none is "") may
 * both have a tool "search". Refused unless both list their tools and the lists cannot meet. Throws
 * a ConfigError naming the later server's prefix field.
 */
export function checkNamespaces(servers: readonly Placed[]): void {
  servers.forEach((later, j) => {
    for (const earlier of servers.slice(0, j)) {
      if (earlier.declaration.prefix !== later.declaration.prefix) continue;
      const a = localNames(earlier.declaration);
      const b = localNames(later.declaration);
      const shared = a && b ? [...b].filter((name) => a.has(name)) : undefined;
      if (shared?.length === 0) continue;
      const { name, prefix } = later.declaration;
      const both = shared
        ? `both list ${shared.map((tool) => `"${tool}"`).join(", ")}`
        : "may both have a tool of one name";
      throw new ConfigError(
        `${later.where}.prefix: the servers "${earlier.declaration.name}" (${earlier.where}) and "${name}" share the ` +
          `prefix "${prefix}" and ${both}: give "${name}" a prefix of its own (e.g. "${name}_") or list ` +
          `disjoint "tools" on both`,
      );
    }
  });
}
