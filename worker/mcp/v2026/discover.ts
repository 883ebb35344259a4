import { SUPPORTED_VERSIONS } from "../../../src/mcp/versions";
import { MODERN_CAPABILITIES } from "../capabilities";

/** server/discover: every revision served and what 2026 requests are offered (no session: any isolate answers). */
export function discover(): Record<string, unknown> {
  return { supportedVersions: SUPPORTED_VERSIONS, capabilities: MODERN_CAPABILITIES };
}
