import { describe, expect, it } from "vitest";
import { DEMO_CONFIG } from "../../../worker/demo/tenant";
import { uid } from "../helpers/adapters";
import { ADMIN_KEY, CALL_KEY, json, request } from "../helpers/requests";

/**
 * approval: "user" over the HTTP API, where the caller cannot be asked mid-call: the call is parked,
 * and the key that made it decides it through its record (POST /v1/approvals/:id), as an admin can.
 * Another key does not see the call; a tool an admin must approve stays the admin's.
 */

const OTHER_KEY = "other-call-key";

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function tenant() {
  const keys = [...DEMO_CONFIG.keys!, { name: "other-call", hash: await sha256Hex(OTHER_KEY), scopes: ["call"] }];
  const config = {
    name: `uappr-${uid()}`,
    tools: ["echo", "add"],
    keys,
    policies: { echo: { approval: "user" }, add: { approval: "always" } },
  };
  return { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "false" };
}

async function park(env: Record<string, string>, name: string, args: unknown) {
  const id = `c-${uid()}`;
  const body = {
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
  };
  const answer = await json(await request("/v1/calls/openai", { env, body }));
  return { id, record: answer.calls[0], message: answer.messages[0].content as string };
}

const decide = (env: Record<string, string>, id: string, key: string, decision: "approve" | "deny") =>
  request(`/v1/approvals/${id}`, { env, key, body: { decision } });

describe('approval: "user" over HTTP', () => {
  it("the caller who made the call approves it, and it runs to its result", async () => {
    const env = await tenant();
    const { id, record, message } = await park(env, "echo", { text: "hi" });
    expect(record.status).toBe("pending");
    expect(message).toContain("the user who made it (or an admin) can approve");
    const approved = await decide(env, id, CALL_KEY, "approve");
    expect(approved.status).toBe(202);
    const done = (await json(await request(`/v1/calls/${id}?wait=10`, { env }))).record;
    expect(done).toMatchObject({ status: "succeeded", permission: "allow" });
  });

  it("the caller may deny it; another key neither sees nor decides it; an admin-approval tool is not the caller's to decide", async () => {
    const env = await tenant();
    const { id } = await park(env, "echo", { text: "no" });
    expect((await decide(env, id, OTHER_KEY, "approve")).status).toBe(404);
    expect((await decide(env, id, CALL_KEY, "deny")).status).toBe(200);
    expect((await json(await request(`/v1/calls/${id}`, { env }))).record.status).toBe("denied");

    const admins = await park(env, "add", { a: 1, b: 2 });
    expect(admins.message).toContain("an admin can approve");
    const refused = await decide(env, admins.id, CALL_KEY, "approve");
    expect(refused.status).toBe(403);
    expect((await decide(env, admins.id, ADMIN_KEY, "approve")).status).toBe(202);
  });
});

/** SHA-256 of "chat-header-key": a key acting for its app's users (Toolgate-User). */
const CHAT_KEY = "chat-header-key";
const CHAT_KEY_HASH = "4df506aaf65544de90410bb89044c2c43cecba63a4f536ea3e75f4d7f5891518";

/** A tenant whose fixture_whoami (answers ctx.user) has this policy, with a key acting for users. */
function userTenant(policy: Record<string, unknown>) {
  const keys = [...DEMO_CONFIG.keys!, { name: "chat", hash: CHAT_KEY_HASH, scopes: ["call"], actAs: "header" }];
  const config = { name: `uu-${uid()}`, tools: ["fixture_whoami"], keys, policies: { fixture_whoami: policy } };
  return { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "false" };
}

/** Requests of CHAT_KEY acting for `user`. */
const forUser = (env: Record<string, string>, user: string) => ({
  env,
  key: CHAT_KEY,
  headers: { "toolgate-user": user },
});

async function whoamiCall(env: Record<string, string>, user: string) {
  const id = `w-${uid()}`;
  const body = [{ id, type: "function", function: { name: "fixture_whoami", arguments: "{}" } }];
  const answer = await json(await request("/v1/calls/openai", { ...forUser(env, user), body }));
  return { id, record: answer.calls[0] };
}

describe('approval: "user" for users', () => {
  it("is decided by the call's user (not another user of the key), and the run keeps the user", async () => {
    const env = userTenant({ approval: "user", concurrency: { limit: 1, key: "@user" } });
    const { id, record } = await whoamiCall(env, "bob");
    expect(record.status).toBe("pending");

    const listOf = async (options: { env: Record<string, string>; key?: string; headers?: Record<string, string> }) =>
      (await json(await request("/v1/approvals", options))).approvals as { callId: string }[];
    expect(await listOf(forUser(env, "alice"))).toEqual([]);
    expect(await listOf(forUser(env, "bob"))).toEqual([
      expect.objectContaining({ callId: id, user: { id: "bob", source: "header" }, decidable: true }),
    ]);
    expect(await listOf({ env, key: ADMIN_KEY })).toEqual([expect.objectContaining({ callId: id, decidable: true })]);

    const refused = await request(`/v1/approvals/${id}`, { ...forUser(env, "alice"), body: { decision: "approve" } });
    expect(refused.status).toBe(404);
    expect((await json(refused)).error.code).toBe("not_found");
    const still = await json(await request(`/v1/calls/${id}`, { env, key: ADMIN_KEY }));
    expect(still).toMatchObject({ record: { status: "pending" }, approval: { state: "requested" } });

    const approved = await request(`/v1/approvals/${id}`, { ...forUser(env, "bob"), body: { decision: "approve" } });
    expect(approved.status).toBe(202);
    const done = await json(await request(`/v1/calls/${id}?wait=10`, forUser(env, "bob")));
    expect(done).toMatchObject({
      record: { status: "succeeded", output: { structured: { user: { id: "bob", source: "header" } } } },
      approval: { state: "approved", decidedBy: "user:bob" },
      user: { id: "bob", source: "header" },
    });
  });

  it("records an admin's denial as the admin key's", async () => {
    const env = userTenant({ approval: "user" });
    const { id } = await whoamiCall(env, "bob");
    const denied = await json(
      await request(`/v1/approvals/${id}`, { env, key: ADMIN_KEY, body: { decision: "deny" } }),
    );
    expect(denied.call).toMatchObject({
      record: { status: "denied", error: { message: expect.stringMatching(/^An admin denied/) } },
      approval: { state: "denied", decidedBy: "key:dev-admin" },
    });
    const { id: own } = await whoamiCall(env, "bob");
    const mine = await request(`/v1/approvals/${own}`, { ...forUser(env, "bob"), body: { decision: "deny" } });
    expect((await json(mine)).call).toMatchObject({
      record: { error: { message: expect.stringMatching(/^Its user denied/) } },
      approval: { decidedBy: "user:bob" },
    });
  });

  it("keeps the user in a detached run: ctx.user and the record", async () => {
    const env = userTenant({ execution: "detached", concurrency: { limit: 1, key: ["@user"] } });
    const { id, record } = await whoamiCall(env, "bob");
    expect(record.status).toBe("running");
    const done = await json(await request(`/v1/calls/${id}?wait=10`, forUser(env, "bob")));
    expect(done).toMatchObject({
      record: { status: "succeeded", output: { structured: { user: { id: "bob", source: "header" } } } },
      user: { id: "bob", source: "header" },
    });
    expect((await request(`/v1/calls/${id}`, forUser(env, "alice"))).status).toBe(404);
  });
});
