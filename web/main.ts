import "./styles.css";
import { showView, startDocument, topBar, viewMain } from "./app/document";
import { h, replace } from "./app/dom";
import type { Session } from "./app/session";
import { hrefOf, parseHash, type DocumentLink, type View } from "./app/view";
import { adaptersView } from "./views/adapters";
import { approvalsView } from "./views/approvals";
import { batchView } from "./views/batch";
import { connectionsView } from "./views/connections";
import { connectorsView } from "./views/connectors";
import { consentView } from "./views/consent";
import { gatesView } from "./views/gates";
import { historyView } from "./views/history";
import { keysView } from "./views/keys";
import { liveView } from "./views/live";
import { overviewView } from "./views/overview";
import { runView } from "./views/run";
import { toolsView } from "./views/tools";

// The Playground calls model endpoints from its page, so it is its own document (playground.html)
// with its own CSP: this one, with the approve/deny buttons and keys, may connect to the API only.
const PLAYGROUND: DocumentLink = { id: "playground", label: "Playground", document: "./playground" };
const NAV: (View | DocumentLink)[] = [
  // Admins open on the Overview; others (not shown it) on Tools.
  overviewView,
  toolsView,
  runView,
  batchView,
  historyView,
  liveView,
  PLAYGROUND,
  approvalsView,
  gatesView,
  adaptersView,
  keysView,
  connectorsView,
  connectionsView,
  consentView,
];
const app = document.getElementById("app")!;
let cleanup: (() => void) | undefined;

const isView = (entry: View | DocumentLink): entry is View => "render" in entry;

function visibleEntries(session: Session): (View | DocumentLink)[] {
  return NAV.filter(
    (entry) =>
      !isView(entry) || ((!entry.admin || session.admin) && (!entry.people || session.admin || !!session.person)),
  );
}

/** The shell (header, nav, main) and the view the hash names. */
function renderShell(session: Session): void {
  const entries = visibleEntries(session);
  const { id, param } = parseHash(location.hash);
  const named = entries.find((entry) => entry.id === id);
  // An old link to a view that is now its own document (#/playground) goes there.
  if (named && !isView(named)) {
    location.replace(named.document);
    return;
  }
  const views = entries.filter(isView);
  const view = named ?? views[0]!;
  const main = viewMain(view);
  const nav = h(
    "nav",
    { "aria-label": "Views" },
    h(
      "ul",
      {},
      entries
        .filter((entry) => !isView(entry) || !entry.hidden)
        .map((entry) =>
          h(
            "li",
            {},
            h(
              "a",
              {
                href: isView(entry) ? hrefOf(entry.id) : entry.document,
                "aria-current": entry === view ? "page" : undefined,
              },
              entry.label,
            ),
          ),
        ),
    ),
  );
  cleanup?.();
  replace(
    app,
    topBar(session, () => shell.signOut()),
    nav,
    main,
  );
  cleanup = showView(main, view, session, param);
}

const shell = startDocument(app, renderShell, () => {
  cleanup?.();
  cleanup = undefined;
});

window.addEventListener("hashchange", () => {
  const session = shell.session();
  if (!session) return;
  renderShell(session);
  // Move focus to the new view's heading, so keyboard and screen reader users land on it.
  document.querySelector<HTMLElement>("main h1")?.focus();
});
