import type { AdapterKind } from "./kind";
import { httpKind } from "./http";
import { mcpKind } from "./mcp/declaration";
import { openApiKind } from "./openapi";

/**
 * Every adapter kind by its configuration section, in the order their declarations are checked
 * (the first declaration of an upstream sets its rate limit). A new kind is one line here.
 */
export const ADAPTER_KINDS = Object.freeze({
  http: httpKind,
  openapi: openApiKind,
  mcp: mcpKind,
} satisfies Record<string, AdapterKind>);

export type AdapterSection = keyof typeof ADAPTER_KINDS;

export const ADAPTER_SECTIONS = Object.keys(ADAPTER_KINDS) as AdapterSection[];
