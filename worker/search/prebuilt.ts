import type { ToolIndex } from "../search-library";
import { precomputedSearchIndex, preparePrecomputed } from "../tenant/listings/precomputed";
import type { Tenant } from "../tenant/tenant";
import { hasSearchIndex, tenantSearchIndex } from "./setup";

/**
 * A tenant view's search index: for a bundled tenant, the build's (its precomputed listings, loaded and
 * checked once per isolate), else built on the first search (setup.ts).
 */
export async function preparedSearchIndex(tenant: Tenant): Promise<ToolIndex> {
  if (tenant.precomputed && !hasSearchIndex(tenant)) await preparePrecomputed(tenant);
  return tenantSearchIndex(tenant, precomputedSearchIndex(tenant));
}
