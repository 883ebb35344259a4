/**
 * The optional blocks of a tenant's configuration whose schemas are a module apart (lazy/entry.ts), in
 * the order their fields are checked (after the configuration's others).
 */
export const CONFIG_BLOCKS = ["identity", "search", "telemetry", "connections", "codeMode", "endpoints"] as const;
export type ConfigBlock = (typeof CONFIG_BLOCKS)[number];
