import { describe, expect, inject, it } from "vitest";
import { apiCall, navigate, screenshot, signIn, usePage } from "./browser";

// Approvals with context: two similar pending calls told apart at a glance.
const baseUrl = inject("baseUrl");
const browser = usePage();

describe("Approvals with context", () => {
  it("shows who asked, through what, why it waits, the risk and the time left", async () => {
    const { page } = browser;
    const tag = `ctx-${Date.now()}`;
    await apiCall(baseUrl, [
      { id: `${tag}-a`, name: "send_message", args: { to: "ada@example.com", text: "The report is ready." } },
      { id: `${tag}-b`, name: "send_message", args: { to: "bob@example.com", text: "The report is late." } },
    ]);
    await signIn(page, baseUrl, "dev-admin-key");
    const approvals = await navigate(page, "Approvals", "approvals");
    const a = approvals.locator(`li.approval[data-call-id="${tag}-a"]`);
    const b = approvals.locator(`li.approval[data-call-id="${tag}-b"]`);
    // The tool's call summary (its render hint) tells them apart.
    await a.getByText("Message to ada@example.com: The report is ready.", { exact: true }).waitFor();
    await b.getByText("Message to bob@example.com: The report is late.", { exact: true }).waitFor();
    for (const card of [a, b]) {
      await card.getByText("risk high", { exact: true }).waitFor();
      await card.getByText("Asked by key dev-call through HTTP", { exact: true }).waitFor();
      await card
        .getByRole("list", { name: /^Rules requiring approval/ })
        .getByText("policy.approval")
        .waitFor();
      expect(await card.locator("[data-expires]").textContent()).toMatch(/^expires in \d+ h \d+ min$/);
    }
    await screenshot(page, "approvals-context");
    await b.getByRole("button", { name: `Deny send_message ${tag}-b` }).click();
    await approvals.getByText("Denied send_message.").waitFor();
    await a.getByRole("button", { name: `Deny send_message ${tag}-a` }).click();
    await expect.poll(() => approvals.getByText("Denied send_message.").count()).toBe(2);
  });

  it("shows a call key its own pending calls, without deciding those an admin must", async () => {
    // A page of its own: the first test's admin key stays in its page's session storage.
    const page = await browser.page.context().newPage();
    const tag = `own-${Date.now()}`;
    await apiCall(baseUrl, [{ id: `${tag}-a`, name: "send_message", args: { to: "cy@example.com", text: "Hi." } }]);
    await signIn(page, baseUrl, "dev-call-key");
    const approvals = await navigate(page, "Approvals", "approvals");
    const card = approvals.locator(`li.approval[data-call-id="${tag}-a"]`);
    await card.getByText("Asked by key dev-call through HTTP", { exact: true }).waitFor();
    await card.getByText("Waiting for an admin's decision.", { exact: true }).waitFor();
    expect(await card.getByRole("button").count()).toBe(0);
    await page.close();
  });
});
