import { canonicalJson, hashJson } from "../hash";
import { pointerMissesSchema, resolvePointer } from "../json-pointer";
import type { ConcurrencyPolicy } from "../policy";
import type { Tool } from "../tool";

/** Longer resource keys are replaced by their hash, so a gate's name stays short whatever the arguments hold. */
const MAX_KEY_CHARS = 128;

/**
 * The gate a call takes: `<tenant>:tool:<name>` or `<tenant>:group:<group>`, plus `:key:<key>` for a
 * per-resource gate. Throws when the policy's key function does.
 */
export function gateName(tenant: string, toolName: string, concurrency: ConcurrencyPolicy, args: unknown): string {
  const base = `${tenant}:${concurrency.group ? `group:${concurrency.group}` : `tool:${toolName}`}`;
  const { key } = concurrency;
  if (key === undefined) return base;
  const resource = typeof key === "function" ? String(key(args as never)) : pointedKey(args, key);
  return `${base}:key:${resource.length > MAX_KEY_CHARS ? `sha256:${hashJson(resource)}` : resource}`;
}

/** A string value as it is, any other value as canonical JSON; nothing there is the empty key. */
function pointedKey(args: unknown, pointer: string): string {
  const value = resolvePointer(args, pointer);
  if (value === undefined) return "";
  return typeof value === "string" ? value : canonicalJson(value);
}

/**
 * Checks a JSON Pointer key against the tool's input schema: a pointer to an argument the schema does
 * not declare would put every call in the empty key's gate. Throws a TypeError naming the tool.
 * Function keys, and tools whose schema does not say, pass.
 */
export function checkKeyPointer(tool: Tool): void {
  const key = tool.policy.concurrency?.key;
  if (typeof key !== "string") return;
  const miss = pointerMissesSchema(tool.inputSchema, key);
  if (miss) throw new TypeError(`Tool "${tool.name}": invalid policy.concurrency.key "${key}": ${miss}`);
}
