import { sha256Hex } from "./sha256";

/** JSON with object keys sorted, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, val: unknown) => {
    if (val === null || typeof val !== "object" || Array.isArray(val)) return val;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(val).sort()) sorted[key] = (val as Record<string, unknown>)[key];
    return sorted;
  });
}

/** Hex SHA-256 of the canonical JSON of a value. Synchronous so registries and ledgers can use it inline. */
export function hashJson(value: unknown): string {
  return sha256Hex(canonicalJson(value) ?? "null");
}
