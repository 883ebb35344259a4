import { Hono } from "../hono-lazy";
import type { WhoAmI } from "../../src/contract/keys";
import type { AppEnv } from "../env";
import { requireScope } from "../middleware/auth";
import { needRemoteTools } from "../middleware/tenant";

/**
 * GET /whoami (any key): the tenant, the key's name and effective scopes, and the user it acts for
 * (with their roles; never their groups or user key), so a console knows what to show.
 * GET /tenant (admin): the effective configuration. Key hashes and secret names are never shown.
 */
export const tenantInfo = new Hono<AppEnv>()
  .get("/whoami", (c) => {
    const { tenant, caller } = c.var;
    const answer: WhoAmI = { tenant: tenant.name, key: { name: caller.keyName, scopes: [...caller.scopes] } };
    if (caller.user) {
      const { id, name, email, source, roles } = caller.user;
      answer.user = { id, ...(name ? { name } : {}), ...(email ? { email } : {}), source, roles: [...roles] };
    }
    return c.json(answer);
  })
  .get("/tenant", requireScope("admin"), async (c) => {
    const { registry, config, name } = await needRemoteTools(c, "all");
    return c.json({
      name,
      // Functions in a policy (approval predicates, gate keys) drop out of the JSON.
      tools: registry.list().map((tool) => ({ name: tool.name, source: tool.source, policy: tool.policy })),
      limits: config.limits,
      requireApprovalFor: config.requireApprovalFor ?? {},
      deny: config.deny,
      consoleOrigins: config.consoleOrigins,
      keys: config.keys.map(({ name: keyName, scopes, actAs, codeMode }) => ({
        name: keyName,
        scopes,
        ...(actAs ? { actAs } : {}),
        ...(codeMode ? { codeMode } : {}),
      })),
    });
  });
