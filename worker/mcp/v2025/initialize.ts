import * as v from "valibot";
import { RpcCode } from "../../../src/mcp/errors";
import { isLegacyVersion, LATEST_LEGACY_VERSION, type LegacyVersion } from "../../../src/mcp/versions";
import { CAPABILITIES, SERVER_INFO } from "../capabilities";
import { askFlagsOf } from "../client-asks";
import { RpcFailure } from "../jsonrpc";

const InitializeParams = v.object({
  protocolVersion: v.string(),
  capabilities: v.optional(v.record(v.string(), v.unknown())),
  clientInfo: v.optional(v.looseObject({ name: v.string() })),
});

/**
 * initialize: the client's legacy version when this server speaks it, else the newest legacy one
 * (never a 2026 one), and what the client declared it answers (the session keeps that in its id).
 */
export function initialize(params: unknown): { version: LegacyVersion; result: Record<string, unknown>; asks: number } {
  const parsed = v.safeParse(InitializeParams, params ?? {});
  if (!parsed.success) {
    const message = "initialize: params must hold protocolVersion, capabilities and clientInfo.";
    throw new RpcFailure(RpcCode.invalidParams, message);
  }
  const asked = parsed.output.protocolVersion;
  const version = isLegacyVersion(asked) ? asked : LATEST_LEGACY_VERSION;
  const result = { protocolVersion: version, capabilities: CAPABILITIES, serverInfo: SERVER_INFO };
  return { version, result, asks: askFlagsOf(parsed.output.capabilities) };
}
