import { FormatSchemaError, type Format } from "../../../src/formats/format";
import type { Tool } from "../../../src/tool";
import { precomputedListing } from "./precomputed";
import type { Tenant } from "../tenant";

export interface Listing<Definition = unknown> {
  tools: Definition[];
  /** Tools this format cannot express (its schema subset), with the reason; absent when none. */
  skipped?: { name: string; message: string }[];
}

/** Listings for allow-lists kept per tenant view: one per role (or key) that lists, not one per caller. */
export const MAX_ALLOWED_LISTINGS = 32;

/**
 * Listings for callers with an allow-list (a key's tools, a user's roles), per tenant view, by the
 * names of the tenant's tools the list lets through: 500 users in 3 roles build 3 listings. At most
 * MAX_ALLOWED_LISTINGS per view (the oldest goes first: more lists than that are built per request).
 */
const byAllowList = new WeakMap<Tenant, Map<string, unknown>>();

/** The cache key of what `allowed` lets through of the tenant's tools (its other names list nothing). */
function allowedSignature(tenant: Tenant, allowed: ReadonlySet<string>): string {
  return tenant.registry
    .names()
    .filter((name) => allowed.has(name))
    .join("\n");
}

/** The listing kept for `kind` and this allow-list, else made and kept. */
function keptForAllowList<T>(tenant: Tenant, kind: string, allowed: ReadonlySet<string>, make: () => T): T {
  let kept = byAllowList.get(tenant);
  if (kept === undefined) byAllowList.set(tenant, (kept = new Map()));
  const key = `${kind}\n${allowedSignature(tenant, allowed)}`;
  if (kept.has(key)) return kept.get(key) as T;
  const made = make();
  if (kept.size >= MAX_ALLOWED_LISTINGS) kept.delete(kept.keys().next().value!);
  kept.set(key, made);
  return made;
}

/**
 * The tenant's tools in a format's shape (GET /v1/tools/:format, MCP tools/list); computed once per
 * tenant view and format (a view's registry is fixed). With `allowed` (a caller's allow-list), only
 * those tools, kept per allow-list (byAllowList).
 */
export function toolListing<Definition>(
  tenant: Tenant,
  format: Format<Definition>,
  allowed?: ReadonlySet<string>,
): Listing<Definition> {
  if (allowed)
    return keptForAllowList(tenant, format.name, allowed, () =>
      listingOf(
        tenant.registry.list().filter((tool) => allowed.has(tool.name)),
        format,
      ),
    );
  const cached = tenant.listings.get(format.name) as Listing<Definition> | undefined;
  if (cached) return cached;
  const result = listingOf(tenant.registry.list(), format);
  tenant.listings.set(format.name, result);
  return result;
}

/**
 * A listing as JSON text (GET /v1/tools/:format): the build's precomputed one when the tenant has it
 * (precomputed.ts), else built. The whole listing is serialised once per tenant view and
 * format: a large tenant's listing is hundreds of KB, which would otherwise be stringified on every
 * request. With `allowed`, only those tools, kept per allow-list (byAllowList).
 */
export function toolListingJson(tenant: Tenant, format: Format, allowed?: ReadonlySet<string>): string {
  if (allowed)
    return keptForAllowList(
      tenant,
      `${format.name}:json`,
      allowed,
      () => precomputedListing(tenant, format.name, allowed) ?? JSON.stringify(toolListing(tenant, format, allowed)),
    );
  const precomputed = precomputedListing(tenant, format.name);
  if (precomputed !== undefined) return precomputed;
  const key = `${format.name}:json`;
  let text = tenant.listings.get(key) as string | undefined;
  if (text === undefined) tenant.listings.set(key, (text = JSON.stringify(toolListing(tenant, format))));
  return text;
}

/** The listing of these tools in a format: each definition, or why the format skips the tool. */
export function listingOf<Definition>(tools: readonly Tool[], format: Format<Definition>): Listing<Definition> {
  const result: Listing<Definition> = { tools: [] };
  for (const tool of tools) {
    try {
      result.tools.push(format.toolDefinition(tool));
    } catch (error) {
      if (!(error instanceof FormatSchemaError)) throw error;
      (result.skipped ??= []).push({ name: tool.name, message: error.message });
    }
  }
  return result;
}
