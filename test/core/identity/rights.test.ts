import { describe, expect, it } from "vitest";
import type { Role } from "../../../worker/identity/config";
import { intersectScopes, rightsOf, roleGroups } from "../../../worker/identity/lazy/rights";
import { readClaim, userFromClaims } from "../../../worker/identity/lazy/claims";
import { userFromHeader, userKey } from "../../../worker/identity/lazy/user";

/**
 * Who a user is and what they may do: a bounded user from claims or a header, and roles matched by
 * group, "*" or user id/email, with their union. Pure functions (test/worker/identity/caller.test.ts
 * composes them with credentials).
 */

const ROLES: Record<string, Role> = {
  admins: { groups: ["toolgate-admins"], scopes: ["admin"] },
  support: { groups: ["support"], tools: ["crm_lookup", "add"], ratePerMinute: 120 },
  named: { users: ["carol@example.test", "dave"], tools: ["echo"], ratePerMinute: 10 },
  everyone: { groups: ["*"], tools: ["add", "echo"], ratePerMinute: 30 },
};

const who = (groups: string[] = [], id = "u1", email?: string) => ({ id, groups, ...(email ? { email } : {}) });

describe("rightsOf", () => {
  it("gives every user call and every tool when no roles are configured", () => {
    expect(rightsOf(undefined, who())).toEqual({ roles: [], scopes: new Set(["call"]) });
  });

  it("matches roles by group, by * and by user id or email, and unions what they give", () => {
    expect(rightsOf(ROLES, who(["support"]))).toEqual({
      roles: ["support", "everyone"],
      scopes: new Set(["call"]),
      tools: new Set(["crm_lookup", "add", "echo"]),
      ratePerMinute: 120,
    });
    // By email, and by id; a header user (no groups, no email) matches * and its id only.
    expect(rightsOf(ROLES, who([], "c1", "carol@example.test"))?.roles).toEqual(["named", "everyone"]);
    expect(rightsOf(ROLES, who([], "dave"))?.roles).toEqual(["named", "everyone"]);
    // A role without tools gives every tool; without a rate, no limit.
    const admin = rightsOf(ROLES, who(["toolgate-admins", "support"]))!;
    expect(admin.scopes).toEqual(new Set(["admin", "call"]));
    expect(admin.tools).toBeUndefined();
    expect(admin.ratePerMinute).toBeUndefined();
  });

  it("answers null when roles are configured and none includes the user", () => {
    const { everyone: _, ...noStar } = ROLES;
    expect(rightsOf(noStar, who(["marketing"], "zoe", "zoe@example.test"))).toBeNull();
  });

  it("keeps only the groups some role names", () => {
    expect([...roleGroups(ROLES)].sort()).toEqual(["support", "toolgate-admins"]);
    expect(roleGroups(undefined).size).toBe(0);
  });

  it("intersects scopes: admin only where both hold it, call where both may call", () => {
    const s = (...scopes: ("call" | "admin")[]) => new Set(scopes);
    expect(intersectScopes(s("admin"), s("call"))).toEqual(s("call"));
    expect(intersectScopes(s("call"), s("admin"))).toEqual(s("call"));
    expect(intersectScopes(s("admin"), s("admin"))).toEqual(s("admin", "call"));
  });
});

describe("users from claims and headers", () => {
  const names = { id: "sub", name: "name", email: "email", groups: "groups" };

  it("reads the id, name, email and groups, bounded", () => {
    const read = userFromClaims(
      {
        sub: "alice",
        name: `Alice\u0007 ${"A".repeat(300)}`,
        email: "a@example.test",
        groups: ["g1", 7, "x".repeat(300)],
      },
      names,
      "oidc",
    );
    expect(read.ok && read.user).toEqual({
      id: "alice",
      source: "oidc",
      name: `Alice ${"A".repeat(194)}`,
      email: "a@example.test",
      groups: ["g1"],
    });
    // An id over 256 characters, a control character, or none at all: no user.
    for (const sub of ["x".repeat(257), "a\nb", undefined, ""])
      expect(userFromClaims({ sub }, names, "oidc").ok).toBe(false);
  });

  it("reads nested claims by dot path, and a claim whose name holds dots whole", () => {
    expect(readClaim({ custom: { groups: ["a"] } }, "custom.groups")).toEqual(["a"]);
    expect(readClaim({ "https://acme.example/groups": ["b"] }, "https://acme.example/groups")).toEqual(["b"]);
    expect(readClaim({ custom: "x" }, "custom.groups")).toBeUndefined();
  });

  it("never trusts an email the provider says is not verified", () => {
    const byEmail = { ...names, id: "email" };
    expect(userFromClaims({ email: "a@example.test", email_verified: false }, byEmail, "oidc").ok).toBe(false);
    const read = userFromClaims({ sub: "a", email: "a@example.test", email_verified: false }, names, "oidc");
    expect(read.ok && read.user.email).toBeUndefined();
  });

  it("takes a header id of visible ASCII only", () => {
    expect(userFromHeader("bob@example.test")).toEqual({
      ok: true,
      user: { id: "bob@example.test", source: "header", groups: [] },
    });
    for (const bad of ["", "has space", "é", "x".repeat(257)]) expect(userFromHeader(bad).ok).toBe(false);
  });

  it("keys a user per tenant: u_ and 32 base64url characters, the same for the same id", async () => {
    const key = await userKey("acme", "alice");
    expect(key).toMatch(/^u_[A-Za-z0-9_-]{32}$/);
    expect(await userKey("acme", "alice")).toBe(key);
    expect(await userKey("other", "alice")).not.toBe(key);
    expect(await userKey("acme", "alice2")).not.toBe(key);
  });
});
