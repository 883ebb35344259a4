import { isApiError } from "../../src/client";
import type { AuthMethods } from "../../src/contract/users";
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
  const provider = h("div", { class: "sign-in-provider" });
  const form = h(
    "form",
    { class: "sign-in", "aria-labelledby": "sign-in-title" },
    h("h1", { id: "sign-in-title", tabindex: -1 }, "toolgate console"),
    provider,
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
  void showProvider(provider);
}

/** "Sign in with <provider>" above the key form, when the tenant signs people in with one. */
async function showProvider(slot: HTMLElement): Promise<void> {
  let methods: AuthMethods;
  try {
    const response = await fetch("/auth/methods", { credentials: "same-origin" });
    if (!response.ok) return;
    methods = (await response.json()) as AuthMethods;
  } catch {
    return;
  }
  if (!methods.oidc) return;
  // Back to the view asked for once signed in (the server takes only the console's own routes).
  const back = /^#\/[A-Za-z0-9/_.~%-]{0,512}$/.test(location.hash) ? location.hash : "#/";
  const href = `/auth/login?return=${encodeURIComponent(back)}`;
  replace(slot, h("a", { class: "button", href, "data-sign-in": "oidc" }, `Sign in with ${methods.oidc.name}`));
}
