import { checkEgress, parseEgressEntry } from "../../src/egress";
import type { Tool } from "../../src/tool";
import type { Catalog } from "./catalog";
import { ConfigError } from "../errors";
import type { TenantConfig } from "./config";

/** The code tools a tenant offers, and the origins they need to reach (they join its egress allow-list). */
export interface ToolSelection {
  tools: Tool[];
  egress: string[];
}

const list = (names: Iterable<string>) => [...names].join(", ") || "none";

/** The catalogue's tools one "tools" entry names: a name, "tag:<tag>" or "*". Throws naming the entry. */
function expand(entry: string, where: string, catalog: Catalog): Tool[] {
  if (entry === "*") return [...catalog.values()];
  if (entry.startsWith("tag:")) {
    const tag = entry.slice(4);
    const tagged = [...catalog.values()].filter((tool) => tool.tags?.includes(tag));
    if (tagged.length === 0) {
      const tags = new Set([...catalog.values()].flatMap((tool) => tool.tags ?? []));
      throw new ConfigError(`${where}: no tool has the tag "${tag}" (tags: ${list([...tags].sort())})`);
    }
    return tagged;
  }
  const tool = catalog.get(entry);
  if (!tool) throw new ConfigError(`${where}: unknown tool "${entry}" (known: ${list(catalog.keys())})`);
  return [tool];
}

/**
 * An egress entry a tool needs, checked as the tenant's own would be (plain http only to
 * loopback hosts in allowHttpHosts).
 */
function checkToolEgress(entry: string, config: TenantConfig): string | undefined {
  const parsed = parseEgressEntry(entry);
  if (typeof parsed === "string") return parsed;
  if (parsed.host.includes("*")) return undefined;
  const host = parsed.host.includes(":") ? `[${parsed.host}]` : parsed.host;
  const url = `${parsed.scheme ?? "https:"}//${host}${parsed.port ? `:${parsed.port}` : ""}/`;
  const check = checkEgress(url, { allowHosts: [entry], allowHttpHosts: config.egress.allowHttpHosts });
  if (check.ok) return undefined;
  return parsed.scheme === "http:"
    ? `${check.reason}; plain http needs the host in egress.allowHttpHosts (loopback only)`
    : check.reason;
}

/**
 * The tenant's code tools from its "tools" list (names, "tag:<tag>", "*"; each tool once, in the order
 * first named), checked against what each declares it needs: every secret it reads must be mapped in
 * "secrets", and the origins it fetches join the tenant's egress allow-list. Throws a ConfigError
 * naming the entry, the tool and the secret or origin.
 */
export function selectTools(config: TenantConfig, catalog: Catalog): ToolSelection {
  const chosen = new Map<string, Tool>();
  const egress: string[] = [];
  config.tools.forEach((entry, i) => {
    const where = entry === "*" || entry.startsWith("tag:") ? `tools[${i}] (${JSON.stringify(entry)})` : `tools[${i}]`;
    for (const tool of expand(entry, `tools[${i}]`, catalog)) {
      if (chosen.has(tool.name)) continue;
      for (const secret of tool.needs?.secrets ?? []) {
        if (secret in config.secrets) continue;
        throw new ConfigError(
          `${where}: the tool "${tool.name}" needs the secret "${secret}": ` +
            `map it in "secrets" ("${secret}": "<Worker secret name>")`,
        );
      }
      for (const origin of tool.needs?.egress ?? []) {
        const problem = checkToolEgress(origin, config);
        if (problem) throw new ConfigError(`${where}: the tool "${tool.name}" needs egress to "${origin}": ${problem}`);
        if (!egress.includes(origin)) egress.push(origin);
      }
      chosen.set(tool.name, tool);
    }
  });
  return { tools: [...chosen.values()], egress };
}
