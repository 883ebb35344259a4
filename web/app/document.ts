import { h } from "./dom";
import { endPersonSession, onUnauthorized, resume, signOut, type Session } from "./session";
import type { View } from "./view";
import { renderSignIn } from "../views/sign-in";

/**
 * What both of the console's documents (the console itself and the Playground) do around their
 * content: resume the tab's key or ask for one, sign out, and ask again when the API stops accepting
 * the key. `show` renders the signed-in page; `leave` stops what it runs before the page is replaced.
 */
export function startDocument(
  app: HTMLElement,
  show: (session: Session) => void,
  leave: () => void,
): { session(): Session | null; signOut(): void } {
  let current: Session | null = null;

  async function start(message?: string): Promise<void> {
    leave();
    current = await resume();
    if (!current) {
      renderSignIn(app, message, (signedIn) => {
        current = signedIn;
        show(signedIn);
        document.querySelector<HTMLElement>("main h1")?.focus();
      });
      return;
    }
    show(current);
  }

  // A key revoked mid-session: the first 401 sends the user back to sign in, saying why.
  onUnauthorized(() => {
    if (!current) return;
    const person = current.person;
    current = null;
    signOut();
    void start(
      person ? "Your sign-in has ended. Sign in again." : "The API no longer accepts this key. Sign in again.",
    );
  });

  void start();
  return {
    session: () => current,
    signOut() {
      const ending = current?.person ? endPersonSession(current) : Promise.resolve();
      signOut();
      current = null;
      void ending.finally(() => start());
    },
  };
}

/** Who is signed in, as the top bar names them: the person, or the key. */
function whoName(session: Session): string {
  const user = session.person ? session.who.user : undefined;
  return user ? (user.name ?? user.id) : session.who.key.name;
}

/** The header both documents show: who is signed in, the document's own links, and Sign out. */
export function topBar(session: Session, onSignOut: () => void, ...links: HTMLElement[]): HTMLElement {
  return h(
    "header",
    { class: "top" },
    h("span", { class: "brand" }, "toolgate"),
    h("span", { class: "who" }, `${session.who.tenant} · ${whoName(session)} (${session.who.key.scopes.join(", ")})`),
    ...links,
    h("button", { type: "button", class: "quiet", onclick: onSignOut }, "Sign out"),
  );
}

/** The element a view renders into: `data-view` names it, `aria-busy` stays "true" until its first data. */
export function viewMain(view: View): HTMLElement {
  return h("main", { id: "content", tabindex: -1, "data-view": view.id, "aria-busy": "true" });
}

/** Renders `view` into its `main` (already on the page); returns what stops its timers and streams. */
export function showView(
  main: HTMLElement,
  view: View,
  session: Session,
  param: string | undefined,
): (() => void) | undefined {
  const rendered = view.render(main, session, param);
  const settled = () => main.setAttribute("aria-busy", "false");
  void Promise.resolve(rendered.ready).then(settled, settled);
  return rendered.cleanup;
}
