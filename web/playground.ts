import "./styles.css";
import { showView, startDocument, topBar, viewMain } from "./app/document";
import { h, replace } from "./app/dom";
import type { Session } from "./app/session";
import { hrefOf } from "./app/view";
import { playgroundView } from "./views/playground";

// The Playground's own document: its CSP (web/public/_headers) lets the page call the model endpoint
// the user enters, which the console's document may not. It uses the tab's key like the console does
// (sessionStorage, same origin), so following the console's link needs no second sign-in.
const app = document.getElementById("app")!;
let cleanup: (() => void) | undefined;

function render(session: Session): void {
  const main = viewMain(playgroundView);
  const back = h("nav", { "aria-label": "Console" }, h("a", { href: `./${hrefOf("tools")}` }, "Back to the console"));
  cleanup?.();
  replace(
    app,
    topBar(session, () => shell.signOut(), back),
    main,
  );
  cleanup = showView(main, playgroundView, session, undefined);
}

const shell = startDocument(app, render, () => {
  cleanup?.();
  cleanup = undefined;
});
