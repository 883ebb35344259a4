/**
 * Curated MCP endpoints' checks and tool selection (docs/endpoints.md), a module apart from the Worker
 * (scripts/endpoints-module.mjs → worker/endpoints/library.generated.mjs) that worker/endpoints-library.ts
 * imports on a tenant's first request to an endpoint: tenants without endpoints never carry or compile it.
 */
export { checkEndpoints, type EndpointCheckTarget, type Fail } from "./check";
export { selectEndpoint, type SelectedTenant } from "./select";
