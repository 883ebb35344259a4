import type { Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startScriptedModel, type ScriptedModel } from "../servers/scripted-model";
import { navigate, openView, screenshot, signIn, usePage, viewReady } from "./browser";

// The Playground: a model loop over the tenant's tools, against a scripted model on 127.0.0.1 that
// speaks both APIs. The model's key goes to the model only.
const baseUrl = inject("baseUrl");
const browser = usePage();
const MODEL_KEY = "sk-scripted-model-key-do-not-leak";
let model: ScriptedModel;

beforeAll(async () => {
  model = await startScriptedModel();
});

afterAll(async () => {
  await model?.close();
});

describe("Playground", () => {
  for (const api of ["openai", "anthropic"] as const) {
    it(`runs an ${api === "openai" ? "OpenAI" : "Anthropic"}-compatible model's tool calls through toolgate, the key never reaching toolgate`, async () => {
      const { page } = browser;
      const toToolgate: Request[] = [];
      const watch = (request: Request) => void (request.url().startsWith(baseUrl) && toToolgate.push(request));
      page.on("request", watch);
      try {
        if (api === "openai") await signIn(page, baseUrl, "dev-call-key");
        const before = model.requests.length;
        // The console's link opens the Playground's own document, signed in with the tab's key.
        const playground = await navigate(page, "Playground", "playground");
        expect(new URL(page.url()).pathname).toBe("/playground");
        await playground.getByLabel("API", { exact: true }).selectOption(api);
        await playground.getByLabel("Endpoint", { exact: true }).fill(model.url);
        await playground.getByLabel("Model", { exact: true }).fill("scripted-1");
        await playground.getByLabel("Model API key", { exact: true }).fill(MODEL_KEY);
        await playground.getByLabel("Prompt", { exact: true }).fill("What is 2 + 3?");
        await playground.getByRole("button", { name: "Send" }).click();
        await playground.getByText("The model answered.").waitFor();
        const transcript = playground.getByRole("list", { name: "Transcript" });
        expect(await transcript.getAttribute("aria-busy")).toBe("false");
        await transcript.getByText('The tool said: {"sum":5}', { exact: true }).waitFor();
        const call = transcript.locator("li[data-call-id]");
        expect(await call.textContent()).toBe("succeeded Add 2 and 3 record");
        await screenshot(page, `playground-${api}`);

        // The model got the tools in its API's shape, and the key; toolgate got neither the key nor
        // the prompt's answer.
        const asked = model.requests.slice(before);
        expect(asked).toHaveLength(2);
        expect(asked[0]!.path).toBe(api === "openai" ? "/v1/chat/completions" : "/v1/messages");
        expect(api === "openai" ? asked[0]!.headers.authorization : asked[0]!.headers["x-api-key"]).toBe(
          api === "openai" ? `Bearer ${MODEL_KEY}` : MODEL_KEY,
        );
        const names = (asked[0]!.body.tools as { name?: string; function?: { name: string } }[]).map(
          (t) => t.name ?? t.function?.name,
        );
        expect(names).toContain("add");
        for (const request of toToolgate) {
          expect(JSON.stringify(await request.allHeaders())).not.toContain(MODEL_KEY);
          expect(request.postData() ?? "").not.toContain(MODEL_KEY);
        }
        expect(
          await page.evaluate(() => JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage })),
        ).not.toContain(MODEL_KEY);

        // Its record is one click away.
        const id = (await call.getAttribute("data-call-id"))!;
        const history = await openView(page, "history", () =>
          call.getByRole("link", { name: `Record of ${id}` }).click(),
        );
        expect(await history.getByLabel("Call id", { exact: true }).inputValue()).toBe(id);
        await history.getByLabel(`Call ${id}`).getByText(id).first().waitFor();
        await navigate(page, "Tools", "tools");
      } finally {
        page.off("request", watch);
      }
    });
  }

  it("mixes a tool that runs in the page with the tenant's tools in one batch", async () => {
    const { page } = browser;
    const playground = await navigate(page, "Playground", "playground");
    await playground.getByLabel("Endpoint", { exact: true }).fill(model.url);
    await playground.getByLabel("Model", { exact: true }).fill("scripted-1");
    await playground.getByLabel("Add tools that run in this page (browser_clock)", { exact: true }).check();
    const calls = [
      { name: "browser_clock", args: {} },
      { name: "add", args: { a: 40, b: 2 } },
    ];
    const before = model.requests.length;
    const toolgateCalls: string[] = [];
    const watch = (request: Request) =>
      void (
        request.url().startsWith(`${baseUrl}/v1/calls`) &&
        request.method() === "POST" &&
        toolgateCalls.push(request.postData() ?? "")
      );
    page.on("request", watch);
    try {
      await playground.getByLabel("Prompt", { exact: true }).fill(`use ${JSON.stringify(calls)}`);
      await playground.getByRole("button", { name: "Send" }).click();
      await playground.getByText("The model answered.").waitFor();
    } finally {
      page.off("request", watch);
    }
    // The model offered both kinds of tool, and got both answers, in order.
    const offered = (model.requests[before]!.body.tools as { function: { name: string } }[]).map(
      (t) => t.function.name,
    );
    expect(offered).toEqual(expect.arrayContaining(["browser_clock", "add"]));
    const final = await playground.locator(".model-text").last().textContent();
    expect(final).toMatch(
      /^The tool said: \{"iso":"\d{4}-[^"]+","local":"[^"]+","timeZone":"[^"]+","language":"[^"]+"\} \| \{"sum":42\}$/,
    );
    // Only the tenant's call went to toolgate; the clock ran in the page.
    expect(toolgateCalls).toHaveLength(1);
    expect(toolgateCalls[0]).toContain('"add"');
    expect(toolgateCalls[0]).not.toContain("browser_clock");
    const transcript = playground.getByRole("list", { name: "Transcript" });
    expect(await transcript.locator('li[data-where="browser"]').textContent()).toMatch(
      /^succeeded The user's clock ran in this page: /,
    );
    await transcript
      .locator('li[data-where="toolgate"]')
      .getByRole("link", { name: /^Record of / })
      .waitFor();
  });

  it("says why the loop stopped when the endpoint fails", async () => {
    const { page } = browser;
    // Back to the console, then a new Playground (by an old link to the console's #/playground): nothing carried over.
    await openView(page, "tools", () => page.getByRole("link", { name: "Back to the console", exact: true }).click());
    expect(new URL(page.url()).pathname).toBe("/");
    const playground = await openView(page, "playground", () => page.goto(`${baseUrl}/#/playground`));
    expect(new URL(page.url()).pathname).toBe("/playground");
    await playground.getByLabel("Endpoint", { exact: true }).fill(`${model.url}/nowhere`);
    await playground.getByLabel("Model", { exact: true }).fill("scripted-1");
    await playground.getByLabel("Prompt", { exact: true }).fill("Hello?");
    await playground.getByRole("button", { name: "Send" }).click();
    await playground.getByText(/^The loop stopped: The endpoint answered 404: no route/).waitFor();
  });

  it("asks a tab with no key to sign in, on the Playground's own page", async () => {
    const page = await browser.page.context().newPage(); // a new tab: its sessionStorage is empty
    try {
      await page.goto(`${baseUrl}/playground`);
      const signInView = page.locator('main[data-view="sign-in"]');
      await signInView.getByLabel("API key", { exact: true }).fill("dev-call-key");
      await signInView.getByRole("button", { name: "Sign in" }).click();
      const playground = await viewReady(page, "playground");
      expect(await playground.getByRole("heading", { level: 1 }).textContent()).toBe("Playground");
      expect(new URL(page.url()).pathname).toBe("/playground");
    } finally {
      await page.close();
    }
  });
});
