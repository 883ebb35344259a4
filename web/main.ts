import "./styles.css";
import { h, replace } from "./app/dom";
import { onUnauthorized, resume, signOut, type Session } from "./app/session";
import { hrefOf, parseHash, type View } from "./app/view";
import { approvalsView } from "./views/approvals";
import { batchView } from "./views/batch";
import { consentView } from "./views/consent";
import { gatesView } from "./views/gates";
import { historyView } from "./views/history";
import { keysView } from "./views/keys";
import { liveView } from "./views/live";
import { runView } from "./views/run";
import { renderSignIn } from "./views/sign-in";
import { toolsView } from "./views/tools";

const VIEWS: View[] = [toolsView, runView, batchView, historyView, liveView, approvalsView, gatesView, keysView, consentView];
const app = document.getElementById("app")!;
let cleanup: (() => void) | undefined;

function visibleViews(session: Session): View[] {
  return VIEWS.filter((view) => !view.admin || session.admin);
}

/** The shell (header, nav, main) and the view the hash names. */
function renderShell(session: Session): void {
  const views = visibleViews(session);
  const { id, param } = parseHash(location.hash);
  const view = views.find((v) => v.id === id) ?? views[0]!;
  // data-view and aria-busy say which view is on screen and whether its first data has arrived.
  const main = h("main", { id: "content", tabindex: -1, "data-view": view.id, "aria-busy": "true" });
  const nav = h(
    "nav",
    { "aria-label": "Views" },
    h("ul", {}, views.filter((v) => !v.hidden).map((v) => h("li", {}, h("a", { href: hrefOf(v.id), "aria-current": v === view ? "page" : undefined }, v.label)))),
  );
  const header = h(
    "header",
    { class: "top" },
    h("span", { class: "brand" }, "toolgate"),
    h("span", { class: "who" }, `${session.who.tenant} · ${session.who.key.name} (${session.who.key.scopes.join(", ")})`),
    h("button", { type: "button", class: "quiet", onclick: () => (signOut(), (current = null), start()) }, "Sign out"),
  );
  cleanup?.();
  replace(app, header, nav, main);
  const rendered = view.render(main, session, param);
  cleanup = rendered.cleanup;
  const settled = () => main.setAttribute("aria-busy", "false");
  void Promise.resolve(rendered.ready).then(settled, settled);
}

let current: Session | null = null;

async function start(message?: string): Promise<void> {
  cleanup?.();
  cleanup = undefined;
  current = await resume();
  if (!current) {
    renderSignIn(app, message, (signedIn) => {
      current = signedIn;
      renderShell(signedIn);
      document.querySelector<HTMLElement>("main h1")?.focus();
    });
    return;
  }
  renderShell(current);
}

window.addEventListener("hashchange", () => {
  if (!current) return;
  renderShell(current);
  // Move focus to the new view's heading, so keyboard and screen reader users land on it.
  document.querySelector<HTMLElement>("main h1")?.focus();
});

// A key revoked mid-session: the first 401 sends the user back to sign in, saying why.
onUnauthorized(() => {
  if (!current) return;
  current = null;
  signOut();
  void start("The API no longer accepts this key. Sign in again.");
});

void start();
