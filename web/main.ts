import "./styles.css";
import { isApiError } from "../src/client";
import { h, replace } from "./app/dom";
import { resume, signOut, type Session } from "./app/session";
import { hrefOf, parseHash, type View } from "./app/view";
import { approvalsView } from "./views/approvals";
import { batchView } from "./views/batch";
import { gatesView } from "./views/gates";
import { historyView } from "./views/history";
import { liveView } from "./views/live";
import { runView } from "./views/run";
import { renderSignIn } from "./views/sign-in";
import { toolsView } from "./views/tools";

const VIEWS: View[] = [toolsView, runView, batchView, historyView, liveView, approvalsView, gatesView];
const app = document.getElementById("app")!;
let cleanup: (() => void) | void;

function visibleViews(session: Session): View[] {
  return VIEWS.filter((view) => !view.admin || session.admin);
}

/** The shell (header, nav, main) and the view the hash names. */
function renderShell(session: Session): void {
  const views = visibleViews(session);
  const { id, param } = parseHash(location.hash);
  const view = views.find((v) => v.id === id) ?? views[0]!;
  const main = h("main", { id: "content", tabindex: -1 });
  const nav = h(
    "nav",
    { "aria-label": "Views" },
    h("ul", {}, views.map((v) => h("li", {}, h("a", { href: hrefOf(v.id), "aria-current": v === view ? "page" : undefined }, v.label)))),
  );
  const header = h(
    "header",
    { class: "top" },
    h("span", { class: "brand" }, "toolgate"),
    h("span", { class: "who" }, `${session.who.tenant} · ${session.who.key.name} (${session.who.key.scopes.join(", ")})`),
    h("button", { type: "button", class: "quiet", onclick: () => (signOut(), start()) }, "Sign out"),
  );
  cleanup?.();
  replace(app, header, nav, main);
  cleanup = view.render(main, session, param);
}

let session: Session | null = null;

async function start(): Promise<void> {
  cleanup?.();
  cleanup = undefined;
  session = await resume();
  if (!session) {
    renderSignIn(app, (signedIn) => {
      session = signedIn;
      renderShell(signedIn);
      document.querySelector<HTMLElement>("main h1")?.focus();
    });
    return;
  }
  renderShell(session);
}

window.addEventListener("hashchange", () => {
  if (!session) return;
  renderShell(session);
  // Move focus to the new view's heading, so keyboard and screen reader users land on it.
  document.querySelector<HTMLElement>("main h1")?.focus();
});

// A key revoked mid-session: any 401 the views let through sends the user back to sign in.
window.addEventListener("unhandledrejection", (event) => {
  if (isApiError(event.reason) && event.reason.status === 401) {
    signOut();
    void start();
  }
});

void start();
