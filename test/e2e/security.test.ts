import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startScriptedModel, type ScriptedModel } from "../servers/scripted-model";
import { apiCall, navigate, openView, signIn, usePage, viewUrl } from "./browser";

// The console's two documents (the console, and the Playground that calls model endpoints): a strict CSP, never framed,
// never sniffed, no referrer; hostile text in arguments and outputs never runs in any view.
const baseUrl = inject("baseUrl");
const browser = usePage();
const HOSTILE =
  '<img src=x onerror="window.__pwned=1">' +
  "<script>window.__pwned=2</script>" +
  '<svg onload="window.__pwned=3"></svg>';
let model: ScriptedModel;

beforeAll(async () => {
  model = await startScriptedModel();
});

afterAll(async () => {
  await model?.close();
});

/** A response's Content-Security-Policy, directive by directive. */
function directivesOf(response: Response): Record<string, string> {
  const csp = response.headers.get("content-security-policy") ?? "";
  return Object.fromEntries(
    csp
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name, values.join(" ")]),
  );
}

/** What a fetch from the page to `url` came to: "answered <status>", or the error it failed with. */
function fetchFrom(page: import("playwright-core").Page, url: string): Promise<string> {
  return page.evaluate(
    (target) =>
      fetch(target).then(
        (r) => `answered ${r.status}`,
        (e: Error) => `${e.name}: ${e.message}`,
      ),
    url,
  );
}

/** Every CSP violation the page reports, kept by an init script (which the CSP does not govern). */
async function violations(page: import("playwright-core").Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __violations?: string[] }).__violations ?? []);
}

describe("console security", () => {
  it("sends a strict CSP, nosniff, no referrer and no framing, on both documents and their assets", async () => {
    const console_ = await fetch(`${baseUrl}/`);
    const playground = await fetch(`${baseUrl}/playground`);
    const policies = { console: directivesOf(console_), playground: directivesOf(playground) };
    for (const directives of Object.values(policies)) {
      expect(directives).toMatchObject({
        "default-src": "'none'",
        "script-src": "'self'",
        "style-src": "'self'",
        "frame-ancestors": "'none'",
        "base-uri": "'none'",
        "object-src": "'none'",
        "form-action": "'none'",
      });
    }
    // The console's document (approve/deny, keys) reaches the API only; the Playground's alone reaches model endpoints.
    expect(policies.console["connect-src"]).toBe("'self'");
    expect(policies.playground["connect-src"]).toBe("'self' https: http://127.0.0.1:* http://localhost:*");
    // The same policy whichever way the Playground is asked for (the .html path redirects).
    const viaHtml = await fetch(`${baseUrl}/playground.html`);
    expect(viaHtml.url).toBe(`${baseUrl}/playground`);
    expect(directivesOf(viaHtml)).toEqual(policies.playground);
    for (const document of [console_, playground]) {
      const html = await document.text();
      const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)![1]!;
      const asset = await fetch(`${baseUrl}/${script}`);
      expect(directivesOf(asset)["connect-src"]).toBe("'self'");
      for (const response of [document, asset]) {
        expect(response.headers.get("x-content-type-options")).toBe("nosniff");
        expect(response.headers.get("referrer-policy")).toBe("no-referrer");
        expect(response.headers.get("x-frame-options")).toBe("DENY");
        const csp = response.headers.get("content-security-policy") ?? "";
        expect(csp).not.toContain("unsafe-inline");
        expect(csp).not.toContain("unsafe-eval");
        expect(csp).not.toContain(","); // one policy, not two joined
      }
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script for the CSP to allow
    }
  });

  it("runs with no CSP violation, blocks an injected inline script, and cannot be framed", async () => {
    const { page } = browser;
    await page.context().addInitScript(() => {
      const seen: string[] = ((window as unknown as { __violations: string[] }).__violations = []);
      document.addEventListener("securitypolicyviolation", (event) =>
        seen.push(`${event.violatedDirective} ${event.blockedURI}`),
      );
    });
    await signIn(page, baseUrl, "dev-admin-key");
    // Rich media (data: images and audio) and every view load within the policy.
    const run = await openView(page, "run", () => page.goto(`${baseUrl}/#/run/sample_media`));
    await run.getByRole("button", { name: "Run sample_media" }).click();
    await run.locator('.result .record[data-status="succeeded"]').waitFor();
    for (const view of ["history", "live", "approvals", "gates", "adapters", "keys", "playground"])
      await openView(page, view, () => page.goto(viewUrl(baseUrl, view)));
    expect(await violations(page)).toEqual([]);

    // The Playground's document may reach a model endpoint (another origin)...
    const before = model.requests.length;
    expect(await fetchFrom(page, `${model.url}/models`)).toMatch(/^answered \d+$/);
    expect(model.requests.length).toBe(before + 1);
    expect(await violations(page)).toEqual([]);
    // ...the console's, with the approve/deny buttons and keys, may not: the browser blocks it before it leaves.
    await openView(page, "approvals", () => page.goto(viewUrl(baseUrl, "approvals")));
    expect(await fetchFrom(page, `${model.url}/models`)).toBe("TypeError: Failed to fetch");
    await expect.poll(() => violations(page)).toEqual([`connect-src ${model.url}/models`]);
    expect(model.requests.length).toBe(before + 1);
    await page.evaluate(() => ((window as unknown as { __violations: string[] }).__violations.length = 0));

    await page.evaluate(() => {
      const script = document.createElement("script");
      script.textContent = "window.__inline = 1";
      document.body.append(script);
    });
    await expect.poll(() => violations(page)).toEqual([expect.stringMatching(/^script-src/)]);
    expect(await page.evaluate(() => (window as { __inline?: number }).__inline)).toBeUndefined();

    // Another page frames the console: the browser refuses to show it.
    const framer = await page.context().newPage();
    await framer.setContent(`<iframe id="console" src="${baseUrl}/"></iframe>`);
    const frame = (await (await framer.$("#console"))!.contentFrame())!;
    await expect.poll(() => frame.url()).toMatch(/^chrome-error:/);
    await framer.close();
  });

  it("never runs hostile text from arguments and outputs, in any view", async () => {
    const { page } = browser;
    const tag = `hostile-${Date.now()}`;
    await apiCall(baseUrl, [
      { id: `${tag}-echo`, name: "echo", args: { text: HOSTILE } },
      { id: `${tag}-send`, name: "send_message", args: { to: HOSTILE, text: HOSTILE } },
    ]);
    const history = await openView(page, "history", () => page.goto(`${baseUrl}/#/history/${tag}-echo`));
    await history
      .getByLabel(`Call ${tag}-echo`)
      .getByLabel("Output text")
      .getByText(HOSTILE, { exact: true })
      .waitFor();
    const approvals = await navigate(page, "Approvals", "approvals");
    await approvals
      .locator(`li.approval[data-call-id="${tag}-send"]`)
      .getByText('Message to <img src=x onerror="window.__pwned=1">')
      .waitFor();
    const live = await navigate(page, "Live", "live");
    await live.getByText("Connected: new events appear at the top.").waitFor();
    await apiCall(baseUrl, [{ id: `${tag}-live`, name: "echo", args: { text: HOSTILE } }]);
    await live.locator('li.event[data-type="call.finished"]').getByText(`${tag}-live`).first().waitFor();
    // The model's own text, built from the tool's output, in the Playground's transcript.
    const playground = await navigate(page, "Playground", "playground");
    await playground.getByLabel("Endpoint", { exact: true }).fill(model.url);
    await playground.getByLabel("Model", { exact: true }).fill("scripted-1");
    await playground.getByLabel("Prompt", { exact: true }).fill(`use echo ${JSON.stringify({ text: HOSTILE })}`);
    await playground.getByRole("button", { name: "Send" }).click();
    await playground.getByText(`The tool said: ${HOSTILE}`, { exact: true }).waitFor();
    await openView(page, "approvals", () => page.goto(`${baseUrl}/#/approvals`));
    await page
      .locator(`li.approval[data-call-id="${tag}-send"]`)
      .getByRole("button", { name: `Deny send_message ${tag}-send` })
      .click();
    // The denied call's record, with the hostile arguments and the console's own waterfall chart, is drawn.
    await page.getByText("Denied send_message.").waitFor();
    await page.locator("main svg.waterfall").waitFor();

    expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
    // Only hostile markup would make these: the console's own SVG charts carry no event handler.
    const hostile = 'main img[src="x"], main script, main svg:not(.chart), main [onerror], main [onload]';
    expect(await page.locator(hostile).count()).toBe(0);
  });
});
