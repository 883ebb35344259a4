import { beforeAll, describe, expect, inject, it } from "vitest";
import { apiCall, openView, screenshot, signIn, usePage, viewUrl } from "./browser";

// A call's page shows where its time went: the wait for approval, for its gate's slot, and each attempt.
const baseUrl = inject("baseUrl");
const browser = usePage();
const admin = { authorization: "Bearer dev-admin-key", "content-type": "application/json" };

describe("A call's waterfall", () => {
  beforeAll(() => signIn(browser.page, baseUrl, "dev-admin-key"));

  it("shows an approved call's wait for its decision, and a gated call's wait for its slot", async () => {
    const { page } = browser;
    const tag = `wf-${Date.now()}`;
    await apiCall(baseUrl, [
      { id: `${tag}-send`, name: "send_message", args: { to: "ada@example.com", text: "Approve me." } },
      { id: `${tag}-sleep`, name: "sleep", args: { ms: 20 } },
    ]);
    const decided = await fetch(`${baseUrl}/v1/approvals/${tag}-send`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ decision: "approve" }),
    });
    expect(decided.status).toBe(202);
    const done = await fetch(`${baseUrl}/v1/calls/${tag}-send?wait=10`, { headers: admin });
    expect(((await done.json()) as { record: { status: string } }).record.status).toBe("succeeded");

    const approved = await openView(page, "history", () => page.goto(viewUrl(baseUrl, `history/${tag}-send`)));
    const approvedCall = approved.getByLabel(`Call ${tag}-send`);
    const waited = approvedCall.getByRole("img", { name: /^Waterfall: approval wait \d+ ms, run, 1 attempt \d+ ms$/ });
    await waited.waitFor();
    expect(await waited.locator("rect.bar.wait").count()).toBe(1);
    expect(await waited.locator("rect.bar.run").count()).toBe(1);
    await screenshot(page, "waterfall");

    const gated = await openView(page, "history", () => page.goto(viewUrl(baseUrl, `history/${tag}-sleep`)));
    const gatedCall = gated.getByLabel(`Call ${tag}-sleep`);
    await gatedCall
      .getByRole("img", { name: /^Waterfall: gate wait \(tool:sleep\) \d+ ms, run, 1 attempt \d+ ms$/ })
      .waitFor();
  });

  it("shows each attempt of a retried call, the failed ones as failed", async () => {
    const { page } = browser;
    const id = `wf-${Date.now()}-flaky`;
    await apiCall(baseUrl, [{ id, name: "flaky", args: { failures: 2 } }]);
    // The demo asks an admin to approve flaky for a call key; approved, it runs its three attempts.
    const decided = await fetch(`${baseUrl}/v1/approvals/${id}`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ decision: "approve" }),
    });
    expect(decided.status).toBe(202);
    const done = await fetch(`${baseUrl}/v1/calls/${id}?wait=10`, { headers: admin });
    expect(((await done.json()) as { record: { status: string } }).record.status).toBe("succeeded");
    const view = await openView(page, "history", () => page.goto(viewUrl(baseUrl, `history/${id}`)));
    const chart = view.getByLabel(`Call ${id}`).getByRole("img", {
      name: new RegExp(
        "^Waterfall: approval wait \\d+ ms, attempt 1: upstream_error \\d+ ms, " +
          "attempt 2: upstream_error \\d+ ms, attempt 3 \\d+ ms$",
      ),
    });
    await chart.waitFor();
    expect(await chart.locator("rect.bar.bad").count()).toBe(2);
    expect(await chart.locator("rect.bar.run").count()).toBe(1);
  });
});
