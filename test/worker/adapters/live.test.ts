import { env as bindings } from "cloudflare:workers";
import { expect, it } from "vitest";
import { loadRemoteMcp } from "../../../worker/remote-mcp-library";
import { remoteToolsOf, withListedTools, withRemoteTools } from "../../../worker/tenant/live-adapters";
import { createTenant } from "../../../worker/tenant/tenant";
import { adapterConfig, uid, upstreams } from "../helpers/adapters";

/**
 * A tenant's remote MCP tools (worker/tenant/live-adapters.ts) are kept beside the tenant, per isolate: the
 * cached tenant is shared by every request, so it stays as it was built.
 */
const env: Record<string, unknown> = { ...bindings };
// These tenants are built directly, not by readyTenant, which would load the client.
await loadRemoteMcp();

it("a request's view holds the remote tools; the tenant itself is left as built", async () => {
  const tenant = createTenant(
    adapterConfig(`live-${uid()}`, { mcp: [{ name: "t", url: upstreams.mcp, prefix: "t_", tools: ["echo"] }] }),
  );
  const built = { ...tenant.adapters };
  const view = await withListedTools(tenant, env);
  expect(view.registry.has("t_echo")).toBe(true);
  expect(tenant.registry.has("t_echo")).toBe(false);
  expect(tenant.adapters).toStrictEqual(built);
  // Views resolve to their tenant's remote tools; the same lists give the same view (its listings stay cached).
  expect(remoteToolsOf(view)).toBe(remoteToolsOf(tenant));
  expect(remoteToolsOf(tenant)?.servers.map((server) => server.declaration.name)).toEqual(["t"]);
  expect(withRemoteTools(view, env)).toBe(view);
});
