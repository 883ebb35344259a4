import type { CallRecord } from "../../src/result";
import { callSummary, schemaDefaults } from "../../src/tool-render";
import { BROWSER_TOOLS } from "../app/browser-tools";
import { catalog, summaryOf } from "../app/catalog";
import { connectLink } from "../app/connect-link";
import { h, notice, replace, statusBadge } from "../app/dom";
import type { ModelApi, ModelTurn } from "../app/model-api";
import { runModelLoop } from "../app/model-loop";
import { hrefOf, type View } from "../app/view";

const DEFAULTS: Record<ModelApi, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
};

function field(id: string, label: string, control: HTMLElement, hint?: string): HTMLElement {
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    control,
    hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null,
  );
}

function modelEntry(turn: ModelTurn): HTMLElement {
  return h(
    "li",
    { class: "turn model", "data-kind": "model" },
    h("h3", {}, "Model"),
    turn.text ? h("p", { class: "model-text" }, turn.text) : null,
    turn.toolCalls.length > 0
      ? h("p", { class: "muted" }, `Calls ${turn.toolCalls.map((c) => c.name).join(", ")}`)
      : null,
  );
}

/** A call's one-line summary: an in-page tool's own render hint, else the catalogue's. */
function summaryIn(record: CallRecord): string | undefined {
  const inPage = BROWSER_TOOLS.get(record.tool);
  if (!inPage) return summaryOf(record.tool, record.args);
  const template = inPage.render?.call;
  return template === undefined ? undefined : callSummary(template, record.args, schemaDefaults(inPage.inputSchema));
}

/** A call that ended needing a connection: a space, then its Connect button (else nothing). */
function connectButton(record: CallRecord): (HTMLElement | string)[] {
  const link = connectLink(record);
  return link ? [" ", link] : [];
}

function callsEntry(records: CallRecord[]): HTMLElement {
  return h(
    "li",
    { class: "turn calls", "data-kind": "calls" },
    h("h3", {}, "toolgate"),
    h(
      "ul",
      {},
      records.map((record) => {
        const inPage = BROWSER_TOOLS.get(record.tool);
        return h(
          "li",
          { "data-call-id": record.callId, "data-where": inPage ? "browser" : "toolgate" },
          statusBadge(record.status),
          ` ${summaryIn(record) ?? record.tool} `,
          // A call run in the page has no ledger record: its outcome is shown here.
          inPage
            ? h(
                "span",
                { class: "muted" },
                `ran in this page: ${JSON.stringify(record.output?.structured ?? record.error?.message ?? null)}`,
              )
            : [
                h(
                  "a",
                  { href: `./${hrefOf("history", record.callId)}`, "aria-label": `Record of ${record.callId}` },
                  "record",
                ),
                ...connectButton(record),
              ],
        );
      }),
    ),
  );
}

/**
 * A real model loop over the tenant's tools. The endpoint, model and key are the user's; the key
 * lives in this view's password field only (never stored, never sent to toolgate): the page calls the
 * model API itself, and toolgate only ever sees the model's tool calls. It is rendered by its own
 * document (playground.ts), whose CSP alone allows model endpoints; record links go to the console's.
 */
export const playgroundView: View = {
  id: "playground",
  label: "Playground",
  render(root, session) {
    const api = h(
      "select",
      { id: "pg-api" },
      h("option", { value: "openai" }, "OpenAI-compatible (Chat Completions)"),
      h("option", { value: "anthropic" }, "Anthropic-compatible (Messages)"),
    );
    const endpoint = h("input", {
      id: "pg-endpoint",
      type: "url",
      value: DEFAULTS.openai,
      autocomplete: "off",
      spellcheck: "false",
      required: true,
    });
    const model = h("input", {
      id: "pg-model",
      type: "text",
      autocomplete: "off",
      spellcheck: "false",
      required: true,
      placeholder: "model name",
    });
    const key = h("input", { id: "pg-key", type: "password", autocomplete: "off", spellcheck: "false" });
    const turns = h("input", { id: "pg-turns", type: "number", min: 1, max: 20, step: 1, value: 6 });
    const prompt = h("textarea", { id: "pg-prompt", rows: 4, maxlength: 20_000, required: true });
    const local = h("input", { id: "pg-browser-tools", type: "checkbox" });
    const transcript = h("ol", { class: "transcript", "aria-label": "Transcript", "aria-busy": "false" });
    const state = h("div", { "aria-live": "polite" });
    const send = h("button", { type: "submit" }, "Send");
    const stop = h("button", { type: "button", class: "quiet", disabled: true }, "Stop");
    let running: AbortController | undefined;
    api.addEventListener("change", () => {
      if (Object.values(DEFAULTS).includes(endpoint.value)) endpoint.value = DEFAULTS[api.value as ModelApi];
    });
    stop.addEventListener("click", () => running?.abort(new Error("Stopped.")));

    const form = h(
      "form",
      { class: "playground", "aria-label": "Playground", novalidate: true },
      h(
        "div",
        { class: "row" },
        field("pg-api", "API", api),
        field("pg-endpoint", "Endpoint", endpoint),
        field("pg-model", "Model", model),
      ),
      field(
        "pg-key",
        "Model API key",
        key,
        "Kept in this tab's memory only: sent to the endpoint above, never to toolgate, never stored.",
      ),
      field("pg-turns", "Most model turns", turns),
      h(
        "div",
        { class: "check" },
        local,
        h(
          "label",
          { for: "pg-browser-tools" },
          `Add tools that run in this page (${BROWSER_TOOLS.list()
            .map((t) => t.name)
            .join(", ")})`,
        ),
      ),
      field("pg-prompt", "Prompt", prompt),
      h("div", { class: "row" }, send, stop),
    );
    key.setAttribute("aria-describedby", "pg-key-hint");
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      if (!endpoint.value || !model.value.trim() || !prompt.value.trim()) {
        replace(state, notice("Enter an endpoint, a model and a prompt.", "error"));
        return;
      }
      running = new AbortController();
      send.disabled = true;
      stop.disabled = false;
      transcript.replaceChildren(
        h("li", { class: "turn user", "data-kind": "user" }, h("h3", {}, "You"), h("p", {}, prompt.value)),
      );
      transcript.setAttribute("aria-busy", "true");
      replace(state, notice("Running…"));
      try {
        const settings = {
          api: api.value as ModelApi,
          endpoint: endpoint.value.trim(),
          model: model.value.trim(),
          key: key.value,
        };
        const limit = Math.min(20, Math.max(1, Math.trunc(Number(turns.value)) || 6));
        const options = { maxTurns: limit, ...(local.checked ? { browserTools: BROWSER_TOOLS } : {}) };
        const end = await runModelLoop(
          session.client,
          settings,
          prompt.value,
          options,
          { model: (t) => transcript.append(modelEntry(t)), calls: (r) => transcript.append(callsEntry(r)) },
          running.signal,
        );
        replace(state, notice(end === "answered" ? "The model answered." : `Stopped after ${limit} model turns.`));
      } catch (error) {
        replace(state, notice(`The loop stopped: ${(error as Error).message}`, "error"));
      } finally {
        transcript.setAttribute("aria-busy", "false");
        send.disabled = false;
        stop.disabled = true;
        running = undefined;
      }
    });
    replace(
      root,
      h("h1", { tabindex: -1 }, "Playground"),
      h("p", {}, "A model calls this tenant's tools through toolgate. Each call's record is one click away."),
      form,
      state,
      h("h2", {}, "Transcript"),
      transcript,
    );
    // The catalogue gives the call summaries (render hints) in the transcript.
    return {
      ready: catalog(session.client).catch(() => undefined),
      cleanup: () => running?.abort(new Error("Left the view.")),
    };
  },
};
