/**
 * Where an SDK adapter's tools come from and where their calls go: the core's pipeline in this process
 * (a registry, with its hooks, gates and journal) or a toolgate Worker (its keys, policy, gates and
 * ledger), through the typed client. Either way each call goes through toolgate, never around it.
 */
import type { ToolgateClient } from "../client/index";
import type { ToolInfo } from "../contract/tools";
import type { JsonSchema } from "../json";
import type { ExecuteOptions } from "../options";
import { executeCall } from "../pipeline/execute";
import type { Registry } from "../registry";
import { resultOfRecord, type CallResult } from "../result";

/** A tool as a model is shown it. */
export interface OfferedTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object). */
  inputSchema: JsonSchema;
}

export interface ToolSource {
  /** The tools to offer. */
  list(): Promise<readonly OfferedTool[]>;
  /** One call by the model's id, name and arguments (JSON text or a value); a failed call is a result. */
  call(id: string, name: string, args: unknown, signal?: AbortSignal): Promise<CallResult>;
}

/** Tools of a registry, each call run here by the core's pipeline with these options (hooks, limiter, journal …). */
export function localTools(options: ExecuteOptions): ToolSource {
  return {
    list: async () =>
      options.registry.list().map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    call: (id, name, args, signal) =>
      executeCall({ id, name, arguments: args }, signal ? { ...options, signal } : options),
  };
}

/**
 * The tools a toolgate Worker offers this client's key (GET /v1/tools; those on its deny list left out),
 * each call made through its API, arguments as the model wrote them (malformed JSON answers invalid_json).
 */
export function remoteTools(client: ToolgateClient): ToolSource {
  return {
    list: async () =>
      (await client.catalog())
        .filter((tool: ToolInfo) => !tool.policy.denied)
        .map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
    async call(id, name, args, signal) {
      const text = typeof args === "string" ? args : JSON.stringify(args ?? {});
      const body = [{ id, type: "function", function: { name, arguments: text } }];
      const answer = await client.run("openai", body, signal ? { signal } : {});
      const record = answer.calls[0];
      if (!record) throw new Error(`toolgate answered no record for the call ${id}`);
      return resultOfRecord(record);
    },
  };
}

/** A registry (its tools run here with no other option) or a source. */
export type ToolsInput = Registry | ToolSource;

export function sourceOf(input: ToolsInput): ToolSource {
  return "call" in input && typeof input.call === "function" ? input : localTools({ registry: input as Registry });
}
