import { isPlainObject } from "../../json";
import { RpcCode } from "../../mcp/errors";
import { MODERN_VERSIONS, type Era, type ModernVersion } from "../../mcp/versions";
import type { RpcError } from "./wire";

/**
 * Which era a server speaks (versioning.mdx, "Backward Compatibility with Initialization-Based
 * Versions"): modern (2026-07-28, stateless, version and capabilities on every request) or legacy
 * (2025-11-25 and earlier, an initialize handshake and a session). The client probes with
 * server/discover and reads the answer the way the specification's Streamable HTTP binding says:
 * a DiscoverResult, or an UnsupportedProtocolVersion error naming a version both speak, is a
 * modern server; any other 4xx, or an answer that is no DiscoverResult, a legacy one; 401/403,
 * 5xx and network faults are no evidence either way and fail the request.
 */

/** A server's era as the client found it: for a modern one, the revision both speak and what it offers. */
export type ServerEra =
  | { kind: Extract<Era, "modern">; version: ModernVersion; capabilities: Record<string, unknown> }
  | { kind: Extract<Era, "legacy"> };

export type ProbeOutcome =
  | { kind: "result"; result: unknown }
  | { kind: "rpc-error"; error: RpcError }
  | { kind: "http-error"; status: number; error?: RpcError };

export type Verdict =
  | ServerEra
  /** UnsupportedProtocolVersion naming a version both speak: ask again with it. */
  | { kind: "retry"; version: ModernVersion }
  /** No evidence (auth, a server fault): the request fails with this status. */
  | { kind: "no-evidence"; status: number };

/** The modern version both speak, from an UnsupportedProtocolVersion error's data.supported. */
export function mutualVersion(error: RpcError | undefined): ModernVersion | undefined {
  const supported = isPlainObject(error?.data) ? error.data.supported : undefined;
  if (!Array.isArray(supported)) return undefined;
  return MODERN_VERSIONS.find((version) => supported.includes(version));
}

/** An error only a modern server sends: UnsupportedProtocolVersion naming a modern version both speak. */
export function isModernEvidence(error: RpcError | undefined): boolean {
  return error?.code === RpcCode.unsupportedVersion && mutualVersion(error) !== undefined;
}

/** The era a server/discover probe's outcome shows (pure; the caller does the I/O). */
export function classifyProbe(outcome: ProbeOutcome): Verdict {
  if (outcome.kind === "result") {
    const result = outcome.result;
    const supported =
      isPlainObject(result) && Array.isArray(result.supportedVersions) ? result.supportedVersions : undefined;
    const version = MODERN_VERSIONS.find((v) => supported?.includes(v));
    if (!version || !isPlainObject(result)) return { kind: "legacy" };
    return { kind: "modern", version, capabilities: isPlainObject(result.capabilities) ? result.capabilities : {} };
  }
  if (outcome.kind === "http-error" && (outcome.status === 401 || outcome.status === 403 || outcome.status >= 500)) {
    return { kind: "no-evidence", status: outcome.status };
  }
  const version = mutualVersion(outcome.error);
  return outcome.error?.code === RpcCode.unsupportedVersion && version
    ? { kind: "retry", version }
    : { kind: "legacy" };
}

const mismatches = new WeakSet<object>();

/** Tag an error as "the server is not of the era we took it for": the request did not run; probe again. */
export function eraMismatch<E extends object>(error: E): E {
  mismatches.add(error);
  return error;
}

export function isEraMismatch(error: unknown): boolean {
  return typeof error === "object" && error !== null && mismatches.has(error);
}

/**
 * Eras by MCP endpoint, for the isolate's lifetime: the era is the server's, not a tenant's or a
 * request's (versioning.mdx: cache it per origin, probe again when the assumption fails).
 */
export const knownEras = new Map<string, ServerEra>();
