import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { build, preview, type PreviewServer } from "vite";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launch, type Browser } from "../e2e/browser";
import { installProject } from "./project";

const { work, toolgateTarball, url, key, browserOrigin } = inject("packages");
const app = join(work, "browser-app");

interface PageResult {
  failed?: string;
  inPage: { ok: boolean; output?: { structured?: unknown } };
  gated: string[];
  mixed: {
    results: { ok: boolean; callId: string; output?: { structured?: unknown }; record: { tenant: string } }[];
    answer: { messages: { tool_call_id: string; content: string }[] };
  };
}

let server: PreviewServer;
let browser: Browser;

describe("a Vite app of the packed toolgate, in Chromium", () => {
  beforeAll(async () => {
    mkdirSync(app);
    installProject(app, [toolgateTarball, "valibot@^1.5.0"]);
    cpSync(join(import.meta.dirname, "browser-app"), app, { recursive: true });
    await build({ root: app, configFile: false, logLevel: "warn" });
    const port = Number(new URL(browserOrigin).port);
    server = await preview({
      root: app,
      configFile: false,
      logLevel: "warn",
      preview: { host: "127.0.0.1", port, strictPort: true },
    });
    browser = await launch();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("runs a tool in the page, and a batch mixing it with a tool of wrangler dev", async () => {
    const page = await browser.context.newPage();
    await page.addInitScript((api) => Object.assign(window, { toolgateApi: api }), { url, key });
    await page.goto(`${browserOrigin}/`);
    const output = page.locator("#result");
    await output.filter({ hasText: /\S/ }).waitFor();
    const result = JSON.parse((await output.textContent()) ?? "") as PageResult;
    expect(result.failed).toBeUndefined();
    expect(result.inPage).toMatchObject({ ok: true, output: { structured: { loud: "HELLO" } } });
    // policy.concurrency holds in the page, through the limiter the page loaded when the gate was first used.
    expect(result.gated).toEqual(["ok", "busy"]);
    const [local, edge] = result.mixed.results;
    expect(local).toMatchObject({ ok: true, callId: "call_local", output: { structured: { loud: "MIXED" } } });
    // The edge call ran in the starter's Worker, recorded under its tenant.
    expect(edge).toMatchObject({ ok: true, callId: "call_edge", output: { structured: { sum: 42 } } });
    expect(edge?.record.tenant).toBe("tools-starter");
    expect(result.mixed.answer.messages.map((message) => message.tool_call_id)).toEqual(["call_local", "call_edge"]);
  });
});
