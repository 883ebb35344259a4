/**
 * The MCP revisions toolgate speaks, by era: /mcp serves each of them (worker/mcp/) and the remote MCP
 * adapter speaks each to servers (src/adapters/mcp/). Legacy revisions open a session with
 * `initialize`; modern ones (2026-07-28 on) carry their version and the client's capabilities on
 * every request.
 */

/** The two eras of the protocol. Each side derives what it keeps of an era from this name. */
export type Era = "legacy" | "modern";

/**
 * Newest first: initialize answers the client's version when listed here, else the newest; the client
 * offers the newest and takes any of them back. 2024-11-05 came before Streamable HTTP, yet the
 * official SDKs speak it over it, and so does toolgate.
 */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"] as const;
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];
export const LATEST_LEGACY_VERSION: LegacyVersion = LEGACY_VERSIONS[0];
/** What a legacy request without MCP-Protocol-Version speaks (the transport spec's backwards-compatible default). */
export const DEFAULT_LEGACY_VERSION: LegacyVersion = "2025-03-26";

/** Newest first: the client probes with the newest, then with one the server names among these. */
export const MODERN_VERSIONS = ["2026-07-28"] as const;
export type ModernVersion = (typeof MODERN_VERSIONS)[number];

/**
 * Every revision, newest first: server/discover's supportedVersions and UnsupportedProtocolVersion's
 * `supported` on the server; what the client speaks.
 */
export const SUPPORTED_VERSIONS: readonly (ModernVersion | LegacyVersion)[] = [...MODERN_VERSIONS, ...LEGACY_VERSIONS];

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
  return version >= MODERN_VERSIONS[MODERN_VERSIONS.length - 1]!;
}

/** JSON-RPC batches were part of 2025-03-26 only: 2024-11-05 had none, later revisions removed them. */
export function allowsBatches(version: LegacyVersion): boolean {
  return version === "2025-03-26";
}
