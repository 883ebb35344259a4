import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevServer, type DevServer } from "../servers/wrangler-dev";
import { seriousViolations } from "./axe";
import { openView, signIn, usePage, viewUrl } from "./browser";

// A code run's page shows its program (as text, lines numbered), its log and its calls in order, each
// linking to its record; a call's page links back to its run. A tenant of its own, with codeMode.
const ADMIN_HASH = "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9"; // dev-admin-key
const browser = usePage();
let dev: DevServer;

beforeAll(async () => {
  const config = {
    name: "code-console",
    tools: ["add"],
    keys: [{ name: "admin", hash: ADMIN_HASH, scopes: ["admin"] }],
    codeMode: {},
  };
  dev = await startDevServer({ vars: { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "false" } });
});
afterAll(() => dev?.stop());

const PROGRAM = [
  "const first = await tools.add({ a: 1, b: 2 });",
  'console.log("<img src=x onerror=window.__pwned=1>", first.sum);',
  "return (await tools.add({ a: first.sum, b: 4 })).sum;",
].join("\n");

describe("a code run in the console", () => {
  it("shows the program, its log and its calls, each linked both ways, in light and dark", async () => {
    const { page } = browser;
    const id = `run-${Date.now()}`;
    const res = await fetch(`${dev.url}/v1/calls`, {
      method: "POST",
      headers: { authorization: "Bearer dev-admin-key", "content-type": "application/json" },
      body: JSON.stringify([
        { id, type: "function", function: { name: "run_code", arguments: JSON.stringify({ code: PROGRAM }) } },
      ]),
    });
    expect(res.status).toBe(200);
    await signIn(page, dev.url, "dev-admin-key");
    const view = await openView(page, "history", () => page.goto(viewUrl(dev.url, `history/${id}`)));
    const run = view.getByLabel(`Call ${id}`, { exact: true }).getByRole("region", { name: "Code run" });
    const program = run.getByRole("list", { name: "Program", exact: true });
    await program.waitFor();
    expect(await program.getByRole("listitem").allTextContents()).toEqual(PROGRAM.split("\n"));
    expect(await run.getByLabel("Log").textContent()).toBe("<img src=x onerror=window.__pwned=1> 3");
    const calls = run.getByRole("list", { name: "Calls the program made" }).getByRole("link");
    expect(await calls.allTextContents()).toEqual([`add ${id}.1`, `add ${id}.2`]);
    expect(await page.locator("main img").count()).toBe(0);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await seriousViolations(page)).toEqual([]);
    }

    // The second call's page, and back to the run.
    const child = await openView(page, "history", () => calls.nth(1).click());
    const childCall = child.getByLabel(`Call ${id}.2`, { exact: true });
    await childCall.getByRole("link", { name: id, exact: true }).waitFor();
    const back = await openView(page, "history", () => childCall.getByRole("link", { name: id, exact: true }).click());
    await back.getByLabel(`Call ${id}`, { exact: true }).getByRole("region", { name: "Code run" }).waitFor();
    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
  });
});
