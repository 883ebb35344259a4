import { canonicalJson, hashJson } from "../hash";
import { pointerMissesSchema, resolvePointer } from "../json-pointer";
import { USER_KEY, type ConcurrencyPolicy } from "../policy";
import type { Tool } from "../tool";
import type { CallUser } from "../contract/users";

/** Longer resource keys are replaced by their hash, so a gate's name stays short whatever the arguments hold. */
const MAX_KEY_CHARS = 128;

/**
 * The gate a call takes: `<tenant>:tool:<name>` or `<tenant>:group:<group>`, plus `:key:<key>` for a
 * per-resource gate. A key of parts (an array) joins them with ":"; "@user" is `user:<id>` for a call
 * made for a user, empty for one made for nobody. Throws when the policy's key function does.
 */
export function gateName(
  tenant: string,
  toolName: string,
  concurrency: ConcurrencyPolicy,
  args: unknown,
  user?: Readonly<CallUser>,
): string {
  const base = `${tenant}:${concurrency.group ? `group:${concurrency.group}` : `tool:${toolName}`}`;
  const { key } = concurrency;
  if (key === undefined) return base;
  const resource =
    typeof key === "function"
      ? String(key(args as never, user ? { user } : {}))
      : typeof key === "string"
        ? keyPart(args, key, user)
        : key.map((part) => keyPart(args, part, user)).join(":");
  return `${base}:key:${resource.length > MAX_KEY_CHARS ? `sha256:${hashJson(resource)}` : resource}`;
}

/** One part of a key: the user's, or what a pointer finds in the arguments. */
function keyPart(args: unknown, part: string, user: Readonly<CallUser> | undefined): string {
  if (part === USER_KEY) return user ? `user:${user.id}` : "";
  return pointedKey(args, part);
}

/** A string value as it is, any other value as canonical JSON; nothing there is the empty key. */
function pointedKey(args: unknown, pointer: string): string {
  const value = resolvePointer(args, pointer);
  if (value === undefined) return "";
  return typeof value === "string" ? value : canonicalJson(value);
}

/**
 * Checks a JSON Pointer key (each pointer of an array) against the tool's input schema: a pointer to
 * an argument the schema does not declare would put every call in the empty key's gate. Throws a
 * TypeError naming the tool. "@user", function keys, and tools whose schema does not say, pass.
 */
export function checkKeyPointer(tool: Tool): void {
  const key = tool.policy.concurrency?.key;
  if (key === undefined || typeof key === "function") return;
  for (const part of typeof key === "string" ? [key] : key) {
    if (part === USER_KEY) continue;
    const miss = pointerMissesSchema(tool.inputSchema, part);
    if (miss) throw new TypeError(`Tool "${tool.name}": invalid policy.concurrency.key "${part}": ${miss}`);
  }
}
