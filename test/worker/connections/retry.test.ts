import { describe, expect, it } from "vitest";
import { connectDemo, connectionsTenantEnv } from "../helpers/connections";
import { CALL_KEY, json, request } from "../helpers/requests";

/**
 * A plain HTTP call refused for want of a connection is answered when the caller, once the user has
 * connected, makes it again with the same id: the refusal is not kept as that id's answer.
 */

const ENV = connectionsTenantEnv("conn-retry");

/** my_items by the chat key acting for `user`, under the call id `id`. */
async function myItems(id: string, user: string) {
  const res = await request("/v1/calls", {
    key: CALL_KEY,
    env: ENV,
    headers: { "toolgate-user": user },
    body: { id, name: "my_items", arguments: {} },
  });
  return (await json(res)).calls[0];
}

describe("a plain call retried after connecting", () => {
  it("is answered under the same id once the user has connected", async () => {
    const id = `c-${crypto.randomUUID().slice(0, 8)}`;
    const refused = await myItems(id, "alice");
    expect(refused.status).toBe("denied");
    expect(refused.error.message).toMatch(/open http:\/\/127\.0\.0\.1:8787\/connections\/demo\/connect/);
    await connectDemo("alice", ENV);
    const answered = await myItems(id, "alice");
    expect(answered.status, JSON.stringify(answered)).toBe("succeeded");
    expect(answered.output.structured).toMatchObject({ owner: "alice" });
  });
});
