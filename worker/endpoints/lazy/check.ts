import type { TenantConfig } from "../../tenant/config";

/** Throws the caller's configuration error (this module imports no code of the Worker's bundle). */
export type Fail = (message: string) => never;

/** What the configuration-time check reads of the tenant: its tools' names and its remote servers. */
export interface EndpointCheckTarget {
  /** The tenant's own tools (code and declared adapters), by name. */
  offered: ReadonlySet<string>;
  /** Its remote MCP servers: a tool name under one's prefix may be that server's (known at run time). */
  servers: readonly { name: string; prefix: string }[];
}

/**
 * The endpoints' selections as far as the configuration alone tells: every tool name is the tenant's
 * (or under a remote server's prefix), every `server:` names a remote MCP server, every role is one of
 * identity.roles. Tags, pinned tools and the search tool's name are checked against the tools
 * themselves (select.ts). Fails naming the field.
 */
export function checkEndpoints(config: TenantConfig, target: EndpointCheckTarget, fail: Fail): void {
  for (const [name, endpoint] of Object.entries(config.endpoints ?? {})) {
    const field = `endpoints.${name}`;
    endpoint.tools.forEach((entry, i) => {
      if (entry === "*" || entry.startsWith("tag:")) return;
      if (entry.startsWith("server:")) {
        const server = entry.slice("server:".length);
        if (target.servers.some((declared) => declared.name === server)) return;
        const known = target.servers.map((declared) => declared.name).join(", ") || "none";
        fail(`${field}.tools[${i}]: no remote MCP server is named "${server}" (servers: ${known})`);
      }
      if (target.offered.has(entry) || target.servers.some((server) => entry.startsWith(server.prefix))) return;
      fail(`${field}.tools[${i}]: "${entry}" is not one of the tenant's tools`);
    });
    const roles = Object.keys(config.identity?.roles ?? {});
    endpoint.roles?.forEach((role, i) => {
      if (!roles.includes(role))
        fail(`${field}.roles[${i}]: "${role}" is not one of identity.roles (${roles.join(", ") || "none"})`);
    });
  }
}
