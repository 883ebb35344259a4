/**
 * The MCP revisions /mcp serves, by era. Legacy revisions open a session with `initialize`; modern
 * ones (2026-07-28 on) carry their version and the client's capabilities on every request.
 */

/**
 * Newest first: initialize answers the client's version when listed here, else the newest. 2024-11-05
 * came before Streamable HTTP, yet the official SDKs speak it over it, as toolgate's own client does.
 */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];
export const LATEST_LEGACY_VERSION: LegacyVersion = LEGACY_VERSIONS[0];
/** What a legacy request without MCP-Protocol-Version speaks (the transport spec's backwards-compatible default). */
export const DEFAULT_LEGACY_VERSION: LegacyVersion = "2025-03-26";

export const MODERN_VERSIONS = ["2026-07-28"] as const;
export type ModernVersion = (typeof MODERN_VERSIONS)[number];

/** Every revision served, newest first: server/discover's supportedVersions and UnsupportedProtocolVersion's `supported`. */
export const SERVED_VERSIONS: readonly string[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

export type Era = "legacy" | "modern";

export function isLegacyVersion(value: unknown): value is LegacyVersion {
  return (LEGACY_VERSIONS as readonly unknown[]).includes(value);
}

export function isModernVersion(value: unknown): value is ModernVersion {
  return (MODERN_VERSIONS as readonly unknown[]).includes(value);
}

/**
 * Does a version string name a modern revision, served or not? Revisions are dates, so anything from
 * the first modern one on (or not a date at all, like a future "v2") is not a legacy one.
 */
export function namesModernEra(version: string): boolean {
  return version >= MODERN_VERSIONS[0];
}

/** JSON-RPC batches were part of 2025-03-26 only; later revisions removed them. */
export function allowsBatches(version: LegacyVersion): boolean {
  return version === "2025-03-26";
}
