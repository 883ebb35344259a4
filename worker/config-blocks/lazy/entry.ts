import type * as v from "valibot";
import type { ConfigBlock } from "../names";
import { CodeModeConfigSchema } from "../../code-mode/config";
import { connectionsSchema } from "../../connections/config";

/** Checks across blocks, run after parsing (worker/tenant/config.ts). */
export { connectionsProblem } from "../../connections/config";
import { endpointsSchema } from "../../endpoints/config";
import { identitySchema } from "../../identity/config";
import { SearchConfigSchema } from "../../search/config";
import { telemetrySchema } from "../../telemetry/config";

/**
 * The schemas of the optional blocks of a tenant's configuration, by field, each built when a
 * configuration first has it. This module is apart from the bundle (config-blocks/library.generated.mjs,
 * written by scripts/config-blocks-module.mjs): a tenant whose configuration has none never loads it.
 * A new block: its name in CONFIG_BLOCKS (../names.ts) and its schema here.
 */
export const BLOCK_SCHEMAS = {
  identity: identitySchema,
  search: () => SearchConfigSchema,
  telemetry: telemetrySchema,
  connections: connectionsSchema,
  codeMode: () => CodeModeConfigSchema,
  endpoints: endpointsSchema,
} satisfies Record<ConfigBlock, () => v.GenericSchema>;
