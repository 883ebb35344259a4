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
