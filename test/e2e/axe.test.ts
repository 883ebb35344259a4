import { describe, expect, inject, it } from "vitest";
import { seriousViolations } from "./axe";
import { apiCall, openView, signIn, usePage, viewUrl } from "./browser";

// axe-core in every view, with its data on screen: no serious or critical violation (WCAG 2 A/AA).
const baseUrl = inject("baseUrl");
const browser = usePage();

describe("accessibility (axe-core)", () => {
  it("finds no serious or critical violation in any view, light and dark", async () => {
    const { page } = browser;
    await page.goto(`${baseUrl}/`);
    await page.getByLabel("API key").waitFor();
    expect({ view: "sign-in", violations: await seriousViolations(page) }).toEqual({ view: "sign-in", violations: [] });
    // The check itself can fail: a field with no name is caught, then taken away.
    await page.evaluate(() =>
      document.querySelector("main")!.append(Object.assign(document.createElement("input"), { id: "axe-probe" })),
    );
    expect((await seriousViolations(page)).map((v) => v.id)).toContain("label");
    await page.evaluate(() => document.getElementById("axe-probe")!.remove());
    await signIn(page, baseUrl, "dev-admin-key");
    const tag = `axe-${Date.now()}`;
    await apiCall(baseUrl, [
      { id: `${tag}-add`, name: "add", args: { a: 1, b: 2 } },
      { id: `${tag}-send`, name: "send_message", args: { to: "ada@example.com", text: "Waiting for axe." } },
    ]);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const view of [
        "overview",
        "tools",
        "run/sample_media",
        "batch",
        `history/${tag}-add`,
        "live",
        "playground",
        "approvals",
        "gates",
        "adapters",
        "keys",
      ]) {
        const id = view.split("/")[0]!;
        const main = await openView(page, id, () => page.goto(viewUrl(baseUrl, view)));
        if (id === "run") {
          // With a rich result on screen: markdown, an image, a player, a link.
          const form = main.getByRole("form", { name: "Run sample_media" });
          await form.getByRole("button", { name: "Run sample_media" }).click();
          await form.locator('.result .record[data-status="succeeded"]').waitFor();
        }
        if (id === "history") await main.getByLabel(`Call ${tag}-add`).waitFor();
        expect({ view, scheme, violations: await seriousViolations(page) }).toEqual({ view, scheme, violations: [] });
      }
    }
  });
});
