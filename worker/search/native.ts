import type { Format } from "../../src/formats/format";
import { searchLibrary } from "../search-library";
import { toolListing, type Listing } from "../tenant/listings/listing";
import type { Tenant } from "../tenant/tenant";
import { inSearchMode } from "./mode";

/** The formats whose API searches tools itself (worker/search/lazy/native.ts NATIVE_SEARCH). */
const NATIVE_FORMATS: ReadonlySet<string> = new Set(["anthropic", "openai-responses"]);

/** Per listing (kept per tenant view and allow-list by listing.ts), its native search listing's JSON. */
const kept = new WeakMap<Listing, string>();

/**
 * A search-mode caller's listing in a format whose API searches tools itself, as JSON text: the API's
 * search entry, the pinned tools, then every other tool the caller may use with `defer_loading: true`
 * (lazy/native.ts, loaded with the ranker). Undefined for other formats and callers.
 */
export async function nativeSearchListing(
  tenant: Tenant,
  format: Format,
  caller: { keyName: string; tools?: ReadonlySet<string> },
): Promise<string | undefined> {
  const { search, deny } = tenant.config;
  if (!search || !NATIVE_FORMATS.has(format.name) || !inSearchMode(search, caller)) return undefined;
  // A caller whose listings show only the code tool reads no other tool, deferred or not.
  if (tenant.config.codeMode?.default === "only") return undefined;
  const listing = toolListing(tenant, format, caller.tools);
  let text = kept.get(listing);
  if (text === undefined) {
    const { withNativeSearch } = await searchLibrary();
    kept.set(listing, (text = JSON.stringify(withNativeSearch(format.name, listing, search, deny))));
  }
  return text;
}
