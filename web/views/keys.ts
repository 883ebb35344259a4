import type { ConfiguredKey, KeySecret, RuntimeKey } from "../../src/contract";
import { h, notice, replace, uid } from "../app/dom";
import { rulesFields, rulesText } from "../app/rules-fields";
import type { Session } from "../app/session";
import type { View } from "../app/view";

const when = (ms: number | undefined) => (ms === undefined ? "never" : new Date(ms).toLocaleString());

/** The one place a secret is shown: after create or rotate, with what to do with it. */
function secretNotice(answer: KeySecret, verb: string): HTMLElement {
  return h(
    "div",
    { class: "notice", role: "status", "data-secret": "" },
    h("p", {}, `${verb} "${answer.key.name}". Copy its secret now: it is not shown again.`),
    h("code", { class: "mono", "aria-label": `Secret of ${answer.key.name}` }, answer.secret),
  );
}

function keyRow(
  session: Session,
  key: ConfiguredKey | RuntimeKey,
  out: HTMLElement,
  reload: () => Promise<void>,
): HTMLElement {
  if (key.source === "config") {
    return h(
      "li",
      { class: "card", "data-key": key.name },
      h("h2", {}, key.name),
      h("p", {}, `${key.scopes.join(", ")} · from the configuration (changes with a deploy)`),
    );
  }
  const act = (run: () => Promise<HTMLElement | null>) => async () => {
    try {
      replace(out, await run());
      await reload();
    } catch (error) {
      replace(out, notice(`That failed: ${(error as Error).message}`, "error"));
    }
  };
  const revoked = key.revokedAt !== undefined;
  return h(
    "li",
    { class: "card", "data-key": key.name },
    h("h2", {}, key.name, revoked ? " (revoked)" : ""),
    h(
      "dl",
      { class: "facts" },
      h("dt", {}, "Scopes"),
      h("dd", {}, key.scopes.join(", ")),
      h("dt", {}, "Limits"),
      h("dd", {}, rulesText(key)),
      h("dt", {}, "Created"),
      h("dd", {}, when(key.createdAt)),
      h("dt", {}, "Last used"),
      h("dd", { "data-field": "last-used" }, when(key.lastUsedAt)),
      key.previousValidUntil
        ? [h("dt", {}, "Old secret valid until"), h("dd", {}, when(key.previousValidUntil))]
        : null,
      revoked ? [h("dt", {}, "Revoked"), h("dd", {}, when(key.revokedAt))] : null,
    ),
    revoked
      ? null
      : h(
          "div",
          { class: "row" },
          h(
            "button",
            {
              type: "button",
              class: "quiet",
              "aria-label": `Rotate ${key.name}`,
              onclick: act(async () => secretNotice(await session.client.rotateKey(key.id), "Rotated")),
            },
            "Rotate",
          ),
          h(
            "button",
            {
              type: "button",
              class: "danger",
              "aria-label": `Revoke ${key.name}`,
              onclick: act(async () => (await session.client.revokeKey(key.id), notice(`Revoked "${key.name}".`))),
            },
            "Revoke",
          ),
        ),
  );
}

export const keysView: View = {
  id: "keys",
  label: "Keys",
  admin: true,
  render(root, session) {
    const nameId = uid("key-name");
    const scopeId = uid("key-scope");
    const name = h("input", {
      id: nameId,
      type: "text",
      required: true,
      autocomplete: "off",
      spellcheck: "false",
      pattern: "[a-zA-Z0-9_.\\-]{1,64}",
    });
    const scope = h(
      "select",
      { id: scopeId },
      h("option", { value: "call" }, "call"),
      h("option", { value: "admin" }, "admin"),
    );
    const rules = rulesFields();
    const submit = h("button", { type: "submit" }, "Create key");
    const out = h("div", { "aria-live": "polite" });
    const list = h("ul", { class: "cards", "aria-label": "Keys" });
    const form = h(
      "form",
      { "aria-label": "Create a key" },
      h(
        "div",
        { class: "row" },
        h("div", { class: "field" }, h("label", { for: nameId }, "Name"), name),
        h("div", { class: "field" }, h("label", { for: scopeId }, "Scope"), scope),
      ),
      rules.fields,
      submit,
    );
    const load = async () => {
      const keys = await session.client.keys();
      replace(
        list,
        keys.map((key) => keyRow(session, key, out, load)),
      );
    };
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const read = rules.read();
      if (typeof read === "string") return replace(out, notice(read, "error"));
      submit.disabled = true;
      try {
        const answer = await session.client.createKey({
          name: name.value.trim(),
          scopes: [scope.value as "call" | "admin"],
          ...read,
        });
        replace(out, secretNotice(answer, "Created"));
        form.reset();
        await load();
      } catch (error) {
        replace(out, notice(`Could not create the key: ${(error as Error).message}`, "error"));
      } finally {
        submit.disabled = false;
      }
    });
    replace(
      root,
      h("h1", { tabindex: -1 }, "Keys"),
      h(
        "p",
        {},
        "Keys made here work on every isolate within seconds, without a deploy; only their hashes are stored.",
      ),
      form,
      out,
      h("h2", {}, "Keys"),
      list,
    );
    const ready = load().catch((error: unknown) =>
      replace(out, notice(`Could not load the keys: ${(error as Error).message}`, "error")),
    );
    return { ready };
  },
};
