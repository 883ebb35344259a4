import { build } from "esbuild";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SchemaForm } from "../../web/app/schema-form";
import { launch, type Browser } from "./browser";

// The Run view's form generator in real Chromium, on a schema with every construct it handles.
const SCHEMA = {
  type: "object",
  properties: {
    title: { type: "string", description: "A short title, like `Q3 report`; *plain* words stay snake_case_words" },
    count: { type: "integer", minimum: 1 },
    ratio: { type: "number" },
    enabled: { type: "boolean" },
    notify: { type: "boolean" },
    color: { enum: ["red", "green"] },
    owner: { type: "object", properties: { name: { type: "string" }, age: { type: "integer" } }, required: ["name"] },
    tags: { type: "array", items: { type: "string" } },
    points: { type: "array", items: { $ref: "#/$defs/point" } },
    note: { anyOf: [{ type: "string" }, { type: "null" }] },
    extra: { anyOf: [{ type: "string" }, { type: "number" }] },
  },
  required: ["title", "count", "enabled", "color", "tags"],
  additionalProperties: false,
  $defs: {
    point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] },
  },
};

type Harness = {
  schemaForm: (schema: unknown) => SchemaForm;
  jsonSchemaValidator: (schema: unknown) => (v: unknown) => { ok: boolean; issues?: unknown[] };
};
declare const toolgate: Harness;
declare const form: SchemaForm;

let browser: Browser;
let page: Page;

beforeAll(async () => {
  const bundle = await build({
    entryPoints: ["test/e2e/fixtures/schema-form-entry.ts"],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2022",
  });
  browser = await launch();
  page = await browser.context.newPage();
  await page.setContent(`<!doctype html><main id="root"></main>`);
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
  await page.evaluate((schema) => {
    const f = toolgate.schemaForm(schema);
    document.getElementById("root")!.append(f.element);
    (globalThis as Record<string, unknown>).form = f;
  }, SCHEMA);
});

afterAll(async () => {
  await browser?.close();
});

const read = () => page.evaluate(() => form.read());
const validate = () =>
  page.evaluate((schema) => {
    const { value, problems } = form.read();
    const checked = toolgate.jsonSchemaValidator(schema)(value);
    const issues = [...problems, ...(checked.ok ? [] : (checked.issues as { path: string; message: string }[]))];
    form.showIssues(issues);
    return issues;
  }, SCHEMA);

describe("schema form", () => {
  it("leaves empty optional fields out and lets the core's validator name what is missing", async () => {
    const { value } = await read();
    expect(value).toEqual({ title: "", enabled: false, tags: [] });
    expect(await page.getByLabel("color", { exact: true }).inputValue()).toBe("");
    const issues = await validate();
    expect(issues.map((i) => i.message).join(" ")).toMatch(/count/);
    expect(issues.map((i) => i.message).join(" ")).toMatch(/color/);
  });

  it("reads strings, numbers, booleans, enums, nested objects, arrays (of $ref objects) and raw JSON", async () => {
    await page.getByLabel("title", { exact: true }).fill("Report");
    await page.getByLabel("count", { exact: true }).fill("3");
    await page.getByLabel("ratio (optional)", { exact: true }).fill("0.25");
    await page.getByLabel("enabled", { exact: true }).check();
    await page.getByLabel("notify (optional)", { exact: true }).selectOption({ label: "false" });
    await page.getByLabel("color", { exact: true }).selectOption({ label: "green" });
    await page.getByLabel("Include owner", { exact: true }).check();
    await page.getByLabel("name", { exact: true }).fill("Ada");
    await page.getByRole("button", { name: "Add item to tags" }).click();
    await page.getByRole("button", { name: "Add item to tags" }).click();
    await page.getByLabel("tags item 1", { exact: true }).fill("a");
    await page.getByLabel("tags item 2", { exact: true }).fill("b");
    await page.getByRole("button", { name: "Add item to points" }).click();
    await page.getByLabel("x", { exact: true }).fill("1");
    await page.getByLabel("y", { exact: true }).fill("2");
    await page.getByLabel("extra (optional)", { exact: true }).fill("42");
    const { value, problems } = await read();
    expect(problems).toEqual([]);
    expect(value).toEqual({
      title: "Report",
      count: 3,
      ratio: 0.25,
      enabled: true,
      notify: false,
      color: "green",
      owner: { name: "Ada" },
      tags: ["a", "b"],
      points: [{ x: 1, y: 2 }],
      extra: 42,
    });
    expect(await validate()).toEqual([]);

    await page.getByRole("button", { name: "Remove item 1 of tags" }).click();
    expect((await read()).value).toMatchObject({ tags: ["b"] });
    expect(await page.getByLabel("tags item 1", { exact: true }).inputValue()).toBe("b");
  });

  it("shows a field's description as inline markdown, snake_case kept as it is", async () => {
    const hint = page.locator(".hint").filter({ hasText: "A short title" });
    expect(await hint.locator("code").allTextContents()).toEqual(["Q3 report"]);
    expect(await hint.locator("em").allTextContents()).toEqual(["plain"]);
    expect(await hint.textContent()).toBe("A short title, like Q3 report; plain words stay snake_case_words");
  });

  it("marks invalid fields next to their controls, and reports bad raw JSON", async () => {
    await page.getByLabel("count", { exact: true }).fill("0");
    await page.getByLabel("extra (optional)", { exact: true }).fill("{oops");
    const issues = await validate();
    expect(issues).toContainEqual(
      expect.objectContaining({ path: "extra", message: expect.stringMatching(/^Not valid JSON/) }),
    );
    await page.getByLabel("extra (optional)", { exact: true }).fill("");
    const again = await validate();
    expect(again).toEqual([expect.objectContaining({ path: "count" })]);
    expect(await page.getByLabel("count", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("title", { exact: true }).getAttribute("aria-invalid")).toBeNull();
  });

  it("shows each issue on the field its path names, and answers those no field shows", async () => {
    const issues = [
      { path: "", message: "about the whole" },
      { path: "count", message: 'Instance does not have required property "count".' },
      { path: "owner", message: "too few properties" },
      { path: "extra[0]", message: "inside the raw JSON" },
      { path: "nope", message: "no such field" },
    ];
    const unshown = await page.evaluate((list) => form.showIssues(list), issues);
    expect(unshown).toEqual([issues[0], issues[4]]);
    expect(await page.getByLabel("count", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await page.getByRole("group", { name: "owner" }).getByText("too few properties", { exact: true }).waitFor();
    // A raw JSON field takes the issues inside its value, each with its path from there.
    const extra = page.getByLabel("extra (optional)", { exact: true });
    expect(
      await page.locator(`#${(await extra.getAttribute("aria-describedby"))!.split(" ").at(-1)}`).textContent(),
    ).toBe("[0]: inside the raw JSON");
    expect(await page.evaluate(() => form.showIssues([]))).toEqual([]);
    expect(await page.getByLabel("count", { exact: true }).getAttribute("aria-invalid")).toBeNull();
  });

  it("writes values back (raw JSON mode → form)", async () => {
    const value = {
      title: "T",
      count: 2,
      enabled: false,
      color: "red",
      tags: ["x"],
      points: [
        { x: 5, y: 6 },
        { x: 7, y: 8 },
      ],
      note: "n",
    };
    await page.evaluate((v) => form.write(v), value);
    expect((await read()).value).toEqual(value);
    expect(await page.getByRole("group", { name: "points item 2" }).getByLabel("x", { exact: true }).inputValue()).toBe(
      "7",
    );
  });
});
