import { describe, expect, inject, it } from "vitest";
import { navigate, screenshot, viewReady } from "./browser";
import { actingKey, callFor, throughDemoIdp, useFreshPages } from "./people";

// A person decides their own `approval: "user"` call: the demo with the demo IdP makes `flaky` ask the
// person a call is for (worker/demo/identity.ts). An app's key calls it for bob; bob, signed in through
// the IdP, finds it in Approvals and approves it, and the call completes. Alice, an admin, sees it too;
// another user of the same app does not.
const baseUrl = inject("baseUrl");
const freshPage = useFreshPages();

/** GET `path` with the app's key, for `user`. */
async function asUser(key: string, user: string, path: string): Promise<Response> {
  return fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${key}`, "toolgate-user": user } });
}

/** The console signed in as `login` through the demo IdP, on its Approvals view. */
async function approvalsOf(login: string) {
  const page = await freshPage();
  await page.goto(`${baseUrl}/#/tools`);
  await throughDemoIdp(page, login);
  await viewReady(page, "tools");
  return { page, approvals: await navigate(page, "Approvals", "approvals") };
}

describe("console: a person decides their own approval", () => {
  it("bob approves the call an app made for him; alice sees it, another user does not", async () => {
    const key = await actingKey(baseUrl, "e2e-approve");
    const id = `user-approval-${crypto.randomUUID().slice(0, 8)}`;
    const made = await callFor(baseUrl, key, "bob", id, "flaky", { failures: 0 });
    expect(made.status).toBe(200);
    const listed = async (user: string) => {
      const body = (await (await asUser(key, user, "/v1/approvals")).json()) as { approvals: { callId: string }[] };
      return body.approvals.some((approval) => approval.callId === id);
    };
    expect(await listed("bob")).toBe(true);
    // Another user of the same app neither lists nor reads it.
    expect(await listed("carol")).toBe(false);
    expect((await asUser(key, "carol", `/v1/calls/${id}`)).status).toBe(404);

    // Alice, an admin, sees bob's pending call and could decide it.
    const alice = await approvalsOf("alice");
    const alicesCard = alice.approvals.locator(`li.approval[data-call-id="${id}"]`);
    await alicesCard.getByRole("button", { name: `Approve flaky ${id}` }).waitFor();

    // Bob decides it himself, and the call completes.
    const bob = await approvalsOf("bob");
    const card = bob.approvals.locator(`li.approval[data-call-id="${id}"]`);
    await card.getByRole("button", { name: `Approve flaky ${id}` }).click();
    await bob.approvals.getByText("Approved flaky: succeeded.").waitFor();
    await screenshot(bob.page, "approvals-of-bob");
    const entry = (await (await asUser(key, "bob", `/v1/calls/${id}`)).json()) as {
      record: { status: string };
      user: { id: string } | null;
    };
    expect([entry.record.status, entry.user?.id]).toEqual(["succeeded", "bob"]);
  });
});
