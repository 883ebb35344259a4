import * as v from "valibot";

/**
 * How a caller gets code mode (docs/code-mode.md): "on" the code tool beside its tools, "off" none,
 * "only" the code tool alone in its listings.
 */
export const CODE_MODES = ["on", "off", "only"] as const;

export type CodeMode = (typeof CODE_MODES)[number];

/** A key's or an endpoint's `codeMode`; absent: the tenant's `codeMode.default`. */
export const codeModeField = v.optional(v.picklist(CODE_MODES, 'must be "on", "off" or "only"'));

/** What the check below reads of a configuration. */
interface ModeFields {
  codeMode?: unknown;
  keys: readonly { codeMode?: CodeMode | undefined }[];
  endpoints?: Record<string, { codeMode?: CodeMode | undefined }> | undefined;
}

/**
 * The first key or endpoint turning code mode on in a tenant without the `codeMode` block (its tool's
 * name and limits), as "<field>: <why>"; undefined when there is none.
 */
export function codeModeWithoutBlock(config: ModeFields): string | undefined {
  if (config.codeMode !== undefined) return undefined;
  const fields = [
    ...config.keys.map((key, i) => [`keys[${i}].codeMode`, key.codeMode] as const),
    ...Object.entries(config.endpoints ?? {}).map(([name, e]) => [`endpoints.${name}.codeMode`, e.codeMode] as const),
  ];
  const found = fields.find(([, mode]) => mode === "on" || mode === "only");
  return found && `${found[0]}: "${found[1]}" needs the tenant's codeMode block (its tool's name and limits)`;
}
