import type { CallRecord } from "../../src/result";
import { h } from "./dom";

/** The connect page a refused call names (worker/connections/lazy/tokens.ts words it): origin, then name. */
const CONNECT_URL = /(\S*)\/connections\/([a-z][a-z0-9_-]{0,31})\/connect(?=[\s,.]|$)/;

/**
 * A "Connect <provider>" button for a call that ended needing a connection of its user's, or null. Only
 * this origin's own connect page is linked: a tool's error text cannot send the person elsewhere.
 */
export function connectLink(record: CallRecord): HTMLElement | null {
  const message = record.status === "denied" ? (record.error?.message ?? "") : "";
  const match = CONNECT_URL.exec(message);
  if (!match) return null;
  const [, origin = "", name = ""] = match;
  if (origin !== "" && origin !== location.origin) return null;
  const title = /^Connect (.+?) first \(/.exec(message)?.[1] ?? /did not connect (.+?) \(/.exec(message)?.[1] ?? name;
  return h(
    "a",
    { class: "button", href: `${location.origin}/connections/${name}/connect`, target: "_blank", rel: "noopener" },
    `Connect ${title}`,
  );
}
