import type { SampleCall } from "../../src/formats/format";
import { FORMAT_NAMES, FORMATS, type FormatName } from "../../src/formats/index";
import type { CallRecord } from "../../src/result";
import { h, jsonBlock, notice, replace, statusBadge } from "../app/dom";
import { recordView } from "../app/record-view";
import type { View } from "../app/view";

/** The two demo calls each format's example holds: a starting point to edit. */
const EXAMPLE_CALLS: readonly SampleCall[] = [
  { id: "call_add_1", name: "add", args: { a: 2, b: 3 } },
  { id: "call_echo_1", name: "echo", args: { text: "hello" } },
];

function summary(records: CallRecord[]): HTMLElement {
  return h(
    "ol",
    { class: "records" },
    records.map((record) =>
      h(
        "li",
        {},
        h(
          "details",
          {},
          h("summary", {}, statusBadge(record.status), ` ${record.tool} `, h("span", { class: "mono" }, record.callId)),
          recordView(record),
        ),
      ),
    ),
  );
}

export const batchView: View = {
  id: "batch",
  label: "Batch",
  render(root, session) {
    const input = h("textarea", { id: "batch-input", rows: 12, class: "mono", spellcheck: "false" });
    const format = h(
      "select",
      { id: "batch-format" },
      h("option", { value: "" }, "detect from the body"),
      FORMAT_NAMES.map((f) => h("option", { value: f }, f)),
    );
    const example = h(
      "select",
      { id: "batch-example" },
      h("option", { value: "" }, "(choose)"),
      FORMAT_NAMES.map((f) => h("option", { value: f }, f)),
    );
    example.addEventListener("change", () => {
      if (example.value)
        input.value = JSON.stringify(FORMATS[example.value as FormatName].modelOutput(EXAMPLE_CALLS), null, 2);
    });
    const out = h("div", { "aria-live": "polite" });
    const submit = h("button", { type: "submit" }, "Run batch");
    const form = h(
      "form",
      { "aria-label": "Run a batch" },
      h(
        "div",
        { class: "row" },
        h("div", { class: "field" }, h("label", { for: "batch-format" }, "Format"), format),
        h("div", { class: "field" }, h("label", { for: "batch-example" }, "Insert an example"), example),
      ),
      h("div", { class: "field" }, h("label", { for: "batch-input" }, "Model output"), input),
      submit,
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      let body: unknown;
      try {
        body = JSON.parse(input.value);
      } catch (error) {
        replace(out, notice(`The model output is not JSON: ${(error as Error).message}`, "error"));
        return;
      }
      submit.disabled = true;
      replace(out, notice("Running…"));
      try {
        const answer = format.value
          ? await session.client.run(format.value as FormatName, body)
          : await session.client.runDetected(body);
        const { calls, ...append } = answer as { calls: CallRecord[] } & Record<string, unknown>;
        replace(
          out,
          h("h2", {}, "Answer to append"),
          jsonBlock(append, "Answer to append"),
          h("h2", {}, `Records (${calls.length})`),
          summary(calls),
        );
      } catch (error) {
        replace(out, notice(`The request failed: ${(error as Error).message}`, "error"));
      } finally {
        submit.disabled = false;
      }
    });
    replace(
      root,
      h("h1", { tabindex: -1 }, "Batch"),
      h(
        "p",
        {},
        "Paste what a model returned, in any supported format, and see the exact answer the app would append.",
      ),
      form,
      out,
    );
    return {};
  },
};
