import { createRegistry, type Registry, type ToolEntry } from "../../src/registry";
import { assembleTool, type Tool } from "../../src/tool";
import type { Hooks } from "../../src/hooks";
import { checkKeyPointer } from "../../src/gates/key";
import { ConfigError } from "../errors";
import { tenantApproval } from "./approval";
import type { TenantConfig } from "./config";

/** A tool with the tenant's policy override laid over its own policy (functions in it are kept). */
export function withPolicy(tool: Tool, override: TenantConfig["policies"][string]): Tool {
  return assembleTool({
    name: tool.name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    source: tool.source,
    policy: { ...tool.policy, ...override },
    ...(tool.tags === undefined ? {} : { tags: tool.tags }),
    ...(tool.needs === undefined ? {} : { needs: tool.needs }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    inputSchema: () => tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: () => tool.outputSchema! }),
    validateInput: tool.validateInput,
    ...(tool.validateOutput ? { validateOutput: tool.validateOutput } : {}),
    run: tool.run,
  });
}

/**
 * Check that every tool name the policies, deny list and approvals mention is one the tenant offers.
 * Remote MCP tools are only known at run time: a name under one of their prefixes passes.
 */
function checkNames(config: TenantConfig, offered: ReadonlySet<string>, remotePrefixes: readonly string[]): void {
  const mentioned: [string, readonly string[]][] = [
    ["policies", Object.keys(config.policies)],
    ["deny", config.deny],
    ["requireApprovalFor.tools", config.requireApprovalFor?.tools ?? []],
    ["search.pinned", config.search?.pinned ?? []],
  ];
  for (const [field, names] of mentioned) {
    for (const name of names) {
      if (offered.has(name) || remotePrefixes.some((prefix) => name.startsWith(prefix))) continue;
      throw new ConfigError(`${field}: "${name}" is not one of the tenant's tools`);
    }
  }
}

/**
 * The tenant's registry: its code tools (selectTools) and its adapters' tools (HTTP, OpenAPI), with
 * policy overrides. Throws ConfigError naming the field (createTenant adds the source).
 */
export function buildRegistry(
  config: TenantConfig,
  codeTools: readonly (Tool | ToolEntry)[],
  adapterTools: readonly (Tool | ToolEntry)[] = [],
  remotePrefixes: readonly string[] = [],
): Registry {
  const chosen = [...codeTools, ...adapterTools];
  checkNames(config, new Set(chosen.map((tool) => tool.name)), remotePrefixes);
  const seen = new Set<string>();
  for (const tool of chosen) {
    if (seen.has(tool.name) && tool.name === config.search?.tool)
      throw new ConfigError(`search.tool: "${tool.name}" is the name of one of the tenant's tools; choose another`);
    if (seen.has(tool.name))
      throw new ConfigError(`the tool name "${tool.name}" is used twice (tools and adapters share one namespace)`);
    seen.add(tool.name);
  }
  const tools = chosen.map((tool): Tool | ToolEntry => {
    const override = config.policies[tool.name];
    if (!override) return tool;
    // An entry gets its override when it is built, with the same check.
    if ("build" in tool) return { name: tool.name, build: () => overridden(tool.build(), override) };
    return overridden(tool, override);
  });
  return createRegistry(tools);
}

function overridden(tool: Tool, override: TenantConfig["policies"][string]): Tool {
  try {
    const effective = withPolicy(tool, override);
    checkKeyPointer(effective);
    return effective;
  } catch (error) {
    throw new ConfigError(`policies.${tool.name}: ${(error as Error).message}`);
  }
}

/** The tenant's approval rules as pipeline hooks: deny list first, then its approval rule (approval.ts). */
export function approvalHooks(config: TenantConfig): Hooks {
  const deny = new Set(config.deny);
  const approval = tenantApproval(config);
  if (deny.size === 0 && approval.empty) return {};
  return {
    permission({ tool }) {
      if (deny.has(tool.name)) return { deny: `The tool "${tool.name}" is disabled for this tenant.` };
      if (approval.rules(tool).length > 0) return "approval";
      return undefined;
    },
  };
}
