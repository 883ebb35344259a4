import { isApiError } from "../../src/client";
import { h, notice, replace } from "../app/dom";
import { signIn, type Session } from "../app/session";

/** The sign-in form: one field labelled "API key"; the key is checked with GET /v1/whoami before it is kept. */
export function renderSignIn(root: HTMLElement, message: string | undefined, done: (session: Session) => void): void {
  const input = h("input", {
    id: "api-key",
    name: "api-key",
    type: "password",
    autocomplete: "off",
    required: true,
    spellcheck: "false",
  });
  const status = h("div", { "aria-live": "polite" }, message ? notice(message, "error") : null);
  const button = h("button", { type: "submit" }, "Sign in");
  const form = h(
    "form",
    { class: "sign-in", "aria-labelledby": "sign-in-title" },
    h("h1", { id: "sign-in-title", tabindex: -1 }, "toolgate console"),
    h("p", {}, "Sign in with a tenant API key. It is kept for this tab only and sent as a header, never in a URL."),
    h("label", { for: "api-key" }, "API key"),
    input,
    button,
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    replace(status, notice("Checking the key…"));
    try {
      done(await signIn(input.value.trim()));
    } catch (error) {
      const message =
        isApiError(error) && error.status === 401
          ? "That key is not valid for this tenant."
          : `Could not sign in: ${(error as Error).message}`;
      replace(status, notice(message, "error"));
      input.focus();
    } finally {
      button.disabled = false;
    }
  });
  replace(root, h("main", { id: "content", "data-view": "sign-in" }, form));
  input.focus();
}
