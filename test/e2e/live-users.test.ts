import { describe, expect, inject, it } from "vitest";
import { apiCall, navigate, signIn, usePage } from "./browser";

// Live names who each call is for, as History does: a call an app key made for bob shows "bob" on its
// events, one made for nobody shows no user; the User filter keeps only the events of bob's calls.
const baseUrl = inject("baseUrl");
const livePage = usePage();

/** A runtime key that may name its app's users by id (actAs: "header"), made with the demo admin key. */
async function appKey(): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/keys`, {
    method: "POST",
    headers: { authorization: "Bearer dev-admin-key", "content-type": "application/json" },
    body: JSON.stringify({ name: `e2e-live-${crypto.randomUUID().slice(0, 8)}`, scopes: ["call"], actAs: "header" }),
  });
  if (response.status !== 201) throw new Error(`POST /v1/keys answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { secret: string }).secret;
}

/** Runs add once with `key`, for the user `user` names (Toolgate-User). */
async function addFor(key: string, user: string, id: string): Promise<void> {
  const response = await fetch(`${baseUrl}/v1/calls/openai`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "toolgate-user": user },
    body: JSON.stringify([{ id, type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }]),
  });
  if (!response.ok) throw new Error(`the call answered ${response.status}: ${await response.text()}`);
}

describe("console: Live names each call's user", () => {
  it("shows the user of a call made for bob, none for a call made for nobody, and filters by user", async () => {
    const { page } = livePage;
    const key = await appKey();
    await signIn(page, baseUrl, "dev-admin-key");
    const live = await navigate(page, "Live", "live");
    const run = crypto.randomUUID().slice(0, 8);
    const [ofBob, ofNobody] = [`live-bob-${run}`, `live-nobody-${run}`];
    await addFor(key, "bob", ofBob);
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
