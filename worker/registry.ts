import { createRegistry, type Registry } from "../src/registry";
import { assembleTool, type Tool } from "../src/tool";
import type { Hooks } from "../src/hooks";
import { ConfigError, type TenantConfig } from "./config";

/** A tool with the tenant's policy override laid over its own policy (functions in it are kept). */
function withPolicy(tool: Tool, override: TenantConfig["policies"][string]): Tool {
  return assembleTool({
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    source: tool.source,
    policy: { ...tool.policy, ...override },
    inputSchema: () => tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: () => tool.outputSchema! }),
    validateInput: tool.validateInput,
    ...(tool.validateOutput ? { validateOutput: tool.validateOutput } : {}),
    run: tool.run,
  });
}

/** Check that every tool name the config mentions is one it offers. */
function checkNames(config: TenantConfig, offered: ReadonlySet<string>, known: readonly string[]): void {
  config.tools.forEach((name, i) => {
    if (!known.includes(name)) throw new ConfigError(`TOOLGATE_CONFIG is invalid: tools[${i}]: unknown tool "${name}" (known: ${known.join(", ")})`);
  });
  const mentioned: [string, readonly string[]][] = [
    ["policies", Object.keys(config.policies)],
    ["deny", config.deny],
    ["requireApprovalFor.tools", config.requireApprovalFor?.tools ?? []],
  ];
  for (const [field, names] of mentioned) {
    for (const name of names) {
      if (!offered.has(name)) throw new ConfigError(`TOOLGATE_CONFIG is invalid: ${field}: "${name}" is not one of the tenant's tools`);
    }
  }
}

/** The tenant's registry: its chosen catalogue tools with policy overrides. Throws ConfigError. */
export function buildRegistry(config: TenantConfig, catalog: ReadonlyMap<string, Tool>): Registry {
  checkNames(config, new Set(config.tools), [...catalog.keys()]);
  const tools = config.tools.map((name) => {
    const tool = catalog.get(name)!;
    const override = config.policies[name];
    if (!override) return tool;
    try {
      return withPolicy(tool, override);
    } catch (error) {
      throw new ConfigError(`TOOLGATE_CONFIG is invalid: policies.${name}: ${(error as Error).message}`);
    }
  });
  return createRegistry(tools);
}

/** The tenant's approval rules as pipeline hooks: deny list first, then approval by risk or name. */
export function approvalHooks(config: TenantConfig): Hooks {
  const deny = new Set(config.deny);
  const risks = new Set<string>(config.requireApprovalFor?.risk ?? []);
  const tools = new Set(config.requireApprovalFor?.tools ?? []);
  if (deny.size === 0 && risks.size === 0 && tools.size === 0) return {};
  return {
    permission({ tool }) {
      if (deny.has(tool.name)) return { deny: `The tool "${tool.name}" is disabled for this tenant.` };
      if (tools.has(tool.name) || risks.has(tool.policy.risk ?? "low")) return "approval";
      return undefined;
    },
  };
}
