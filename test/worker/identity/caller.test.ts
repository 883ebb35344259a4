import { describe, expect, it } from "vitest";
import type { Caller } from "../../../worker/env";
import { Refused } from "../../../worker/identity/lazy/refused";
import { grantOfUser, keyActingFor, personCaller, resolveUser } from "../../../worker/identity/lazy/caller";
import type { Role } from "../../../worker/identity/config";
import { userKey } from "../../../worker/identity/lazy/user";
import { parseTenantConfig } from "../../../worker/tenant/config";
import { loadConfigBlocks } from "../../../worker/config-blocks-library";

// The `identity` block's schema is in the optional blocks' module, which readyTenant loads before parsing.
await loadConfigBlocks();

/**
 * A credential's rights narrowed to its user's (worker/identity/caller.ts): key ∩ role, grant ∩ role,
 * a person's roles alone, with the bindings MCP sessions use and the user's own rate limit.
 */

const ROLES: Record<string, Role> = {
  admins: { groups: ["toolgate-admins"], scopes: ["admin"] },
  support: { groups: ["support"], tools: ["crm_lookup", "add"], ratePerMinute: 120 },
  named: { users: ["carol@example.test", "dave"], tools: ["echo"], ratePerMinute: 10 },
  everyone: { groups: ["*"], tools: ["add", "echo"], ratePerMinute: 30 },
};

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i]);

describe("callers acting for users", () => {
  const tenant = {
    name: "acme",
    config: parseTenantConfig({
      name: "acme",
      tools: ["add"],
      keys: [{ name: "k", hash: "a".repeat(64), scopes: ["admin"] }],
      identity: { roles: ROLES },
    }),
  };
  const key: Caller = {
    keyName: "chat",
    scopes: new Set(["admin"]),
    binding: new Uint8Array(32).fill(7),
    tools: new Set(["add", "echo", "crm_lookup"]),
    rateLimits: [{ id: "key:k1", perMinute: 600 }],
    actAs: "header",
  };

  it("narrows a key to the user's roles, adds the user's bucket, and binds to both", async () => {
    const resolved = await resolveUser(tenant, { id: "sam", source: "header", groups: ["support", "unrelated"] });
    expect(resolved.user).toEqual({
      id: "sam",
      source: "header",
      groups: ["support"],
      roles: ["support", "everyone"],
      key: await userKey("acme", "sam"),
    });
    const acting = await keyActingFor(key, resolved);
    expect(acting.keyName).toBe("chat");
    expect(acting.scopes).toEqual(new Set(["call"]));
    expect(acting.tools).toEqual(new Set(["add", "echo", "crm_lookup"]));
    expect(acting.rateLimits).toEqual([
      { id: "key:k1", perMinute: 600 },
      { id: `user:${resolved.user.key}`, perMinute: 120 },
    ]);
    expect(acting.user).toBe(resolved.user);
    // Another user of the same key: another binding (MCP sessions are not shared).
    const other = await keyActingFor(key, await resolveUser(tenant, { id: "dave", source: "header", groups: [] }));
    expect(other.tools).toEqual(new Set(["echo", "add"].filter((tool) => key.tools!.has(tool))));
    expect(same(other.binding, acting.binding)).toBe(false);
    expect(same(acting.binding, key.binding)).toBe(false);
  });

  it("keeps admin for a key and a user that both hold it; a grant keeps its binding", async () => {
    const resolved = await resolveUser(tenant, { id: "ada", source: "oidc", groups: ["toolgate-admins"] });
    expect((await keyActingFor(key, resolved)).scopes).toEqual(new Set(["admin", "call"]));
    const grant: Caller = {
      ...key,
      keyName: "oauth:c#g",
      scopes: new Set(["call"]),
      oauth: { clientId: "c", grantId: "g", metadataUrl: "m" },
    };
    const narrowed = grantOfUser(grant, resolved);
    expect(narrowed.scopes).toEqual(new Set(["call"]));
    expect(narrowed.binding).toBe(grant.binding);
    expect(narrowed.user?.id).toBe("ada");
  });

  it("names a person by their user key, with their roles' rights alone", async () => {
    const resolved = await resolveUser(tenant, { id: "sam", source: "oidc", groups: ["support"] });
    const person = await personCaller(resolved, { via: "cookie", sessionId: "s1", expiresAt: 1 });
    expect(person).toMatchObject({
      keyName: `session:${resolved.user.key}`,
      scopes: new Set(["call"]),
      tools: new Set(["crm_lookup", "add", "echo"]),
      rateLimits: [{ id: `user:${resolved.user.key}`, perMinute: 120 }],
      person: { via: "cookie", sessionId: "s1", expiresAt: 1 },
    });
    const access = await personCaller(resolved, { via: "access", expiresAt: 1 });
    expect(access.keyName).toBe(`access:${resolved.user.key}`);
  });

  it("refuses a user no role includes: 403 no_role", async () => {
    const strict = {
      ...tenant,
      config: { ...tenant.config, identity: { ...tenant.config.identity!, roles: { admins: ROLES.admins! } } },
    };
    const refused = await resolveUser(strict, { id: "zoe", source: "header", groups: [] }).catch((error) => error);
    expect(refused).toBeInstanceOf(Refused);
    expect([refused.refusal.status, refused.refusal.code]).toEqual([403, "no_role"]);
  });
});
