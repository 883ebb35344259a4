import { describe, expect, inject, it } from "vitest";
import { apiCall, navigate, signIn, usePage } from "./browser";
import { actingKey, callFor } from "./people";

// Live names who each call is for, as History does: a call an app key made for bob shows "bob" on its
// events, one made for nobody shows no user; the User filter keeps only the events of bob's calls.
const baseUrl = inject("baseUrl");
const livePage = usePage();

describe("console: Live names each call's user", () => {
  it("shows the user of a call made for bob, none for a call made for nobody, and filters by user", async () => {
    const { page } = livePage;
    const key = await actingKey(baseUrl, "e2e-live");
    await signIn(page, baseUrl, "dev-admin-key");
    const live = await navigate(page, "Live", "live");
    const run = crypto.randomUUID().slice(0, 8);
    const [ofBob, ofNobody] = [`live-bob-${run}`, `live-nobody-${run}`];
    expect((await callFor(baseUrl, key, "bob", ofBob, "add", { a: 1, b: 2 })).status).toBe(200);
    await apiCall(baseUrl, [{ id: ofNobody, name: "add", args: { a: 1, b: 2 } }]);

    const finished = (id: string) => live.locator('li.event[data-type="call.finished"]', { hasText: id });
    await finished(ofBob).waitFor();
    await finished(ofNobody).waitFor();
    expect(await finished(ofBob).locator("span.user").textContent()).toBe(" · bob");
    expect(await finished(ofBob).getAttribute("data-user")).toBe("bob");
    expect(await finished(ofNobody).locator("span.user").count()).toBe(0);

    await live.getByLabel("User", { exact: true }).fill("bob");
    await finished(ofNobody).waitFor({ state: "hidden" });
    expect(await finished(ofBob).isVisible()).toBe(true);
    await live.getByLabel("User", { exact: true }).fill("");
    await finished(ofNobody).waitFor({ state: "visible" });
  });
});
