import { describe, expect, it } from "vitest";
import { mcp } from "../../../src/formats/mcp";
import { openai } from "../../../src/formats/openai";
import { MAX_ALLOWED_LISTINGS, toolListing, toolListingJson } from "../../../worker/tenant/listings/listing";
import { checkTenant } from "../../../worker/tenant/tenant";
import { TEST_CATALOG } from "../../fixtures/catalog";
import { ACT_AS_KEYS, HEADER_KEY } from "../helpers/act-as";
import { connect } from "../helpers/mcp";
import { ADMIN_KEY, json, request } from "../helpers/requests";

/**
 * Listings by role: a user's tools are their roles' (intersected with the key's), on every listing
 * surface, and listings are kept per allow-list, never one role's served to another.
 */

const CONFIG = {
  name: "listings-roles",
  tools: ["add", "echo", "sleep"],
  keys: ACT_AS_KEYS,
  identity: {
    roles: {
      everyone: { groups: ["*"], tools: ["add"] },
      support: { users: ["sam"], tools: ["add", "echo"] },
      ops: { users: ["olga"] },
    },
  },
};
const ENV = { TOOLGATE_CONFIG: JSON.stringify(CONFIG) };
const ROLE_TOOLS = { bob: ["add"], sam: ["add", "echo"], olga: ["add", "echo", "sleep"] } as const;

const names = (list: { name?: string; function?: { name: string } }[]) =>
  list.map((tool) => tool.name ?? tool.function!.name);

/** The tools each listing surface shows the chat key acting for `user` (or the admin key, for null). */
async function listed(user: string | null) {
  const target = user === null ? { key: ADMIN_KEY } : { key: HEADER_KEY, headers: { "toolgate-user": user } };
  const get = async (path: string) => json(await request(path, { ...target, env: ENV }));
  const { client, transport } = await connect({ ...target, vars: ENV });
  try {
    return {
      info: names((await get("/v1/tools")).tools),
      openai: names((await get("/v1/tools/openai")).tools),
      mcp: names((await get("/v1/tools/mcp")).tools),
      toolsList: names((await client.listTools()).tools),
    };
  } finally {
    await transport.close();
  }
}

const everywhere = (tools: readonly string[]) => ({ info: tools, openai: tools, mcp: tools, toolsList: tools });

describe("listings by role", () => {
  it("show each user their roles' tools on every surface, roles taking turns", async () => {
    for (const user of ["sam", "bob", "olga", "sam", "bob"] as const)
      expect(await listed(user), user).toEqual(everywhere(ROLE_TOOLS[user]));
    expect(await listed(null)).toEqual(everywhere(CONFIG.tools));
  });

  it("keep one listing per allow-list, whatever else a list names", () => {
    const tenant = checkTenant(CONFIG, "listings-roles", TEST_CATALOG);
    const add = toolListing(tenant, openai, new Set(["add"]));
    expect(toolListing(tenant, openai, new Set(["add", "not_a_tool"]))).toBe(add);
    const both = toolListing(tenant, openai, new Set(["echo", "add"]));
    expect(both).not.toBe(add);
    expect(names(both.tools)).toEqual(["add", "echo"]);
    expect(toolListing(tenant, mcp, new Set(["add"]))).not.toBe(add);
    const text = toolListingJson(tenant, openai, new Set(["add"]));
    expect(toolListingJson(tenant, openai, new Set(["add"]))).toBe(text);
    expect(names(JSON.parse(text).tools)).toEqual(["add"]);
  });

  it(`keep at most ${MAX_ALLOWED_LISTINGS} per tenant view, the oldest going first`, () => {
    const tenant = checkTenant({ ...CONFIG, tools: ["tag:demo"] }, "listings-roles", TEST_CATALOG);
    const all = tenant.registry.names();
    // Distinct allow-lists: every subset of the first six tools (64 of them), beside the seventh.
    expect(all.length).toBeGreaterThanOrEqual(7);
    const list = (n: number) => new Set([all[6]!, ...all.slice(0, 6).filter((_, bit) => (n >> bit) & 1)]);
    const first = toolListing(tenant, openai, list(0));
    for (let n = 1; n < MAX_ALLOWED_LISTINGS; n++) toolListing(tenant, openai, list(n));
    expect(toolListing(tenant, openai, list(0))).toBe(first);
    toolListing(tenant, openai, list(MAX_ALLOWED_LISTINGS));
    const again = toolListing(tenant, openai, list(0));
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});
