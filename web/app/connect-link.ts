import type { CallRecord } from "../../src/result";
import { h } from "./dom";

/** The connect page a refused call names (worker/connections/lazy/tokens.ts words it): origin, then name. */
const CONNECT_URL = /(\S*)\/connections\/([a-z][a-z0-9_-]{0,31})\/connect(?=[\s,.]|$)/;

/** A parked call's question (worker/connections/lazy/tokens.ts askToConnect): its key names the connection. */
const PARKED_KEY = /^connect:([a-z][a-z0-9_-]{0,31})$/;

/**
 * The connection a parked call waits for its user to make (a detached call or task asking to connect),
 * with the words its question says it in; undefined for any other record.
 */
export function parkedConnection(record: CallRecord): { name: string; message: string } | undefined {
  if (record.status !== "awaiting_input") return undefined;
  for (const [key, request] of Object.entries(record.error?.inputRequests ?? {})) {
    const name = PARKED_KEY.exec(key)?.[1];
    if (name) return { name, message: typeof request.params.message === "string" ? request.params.message : "" };
  }
  return undefined;
}

/**
 * A "Connect <provider>" button for a call that ended needing a connection of its user's, or waits for
 * it (parked), or null. Only this origin's own connect page is linked: a tool's error text cannot send
 * the person elsewhere.
 */
export function connectLink(record: CallRecord): HTMLElement | null {
  const parked = parkedConnection(record);
  if (parked) return button(parked.name, / through (.+?) \(/.exec(parked.message)?.[1] ?? parked.name);
  const message = record.status === "denied" ? (record.error?.message ?? "") : "";
  const match = CONNECT_URL.exec(message);
  if (!match) return null;
  const [, origin = "", name = ""] = match;
  if (origin !== "" && origin !== location.origin) return null;
  const title = /^Connect (.+?) first \(/.exec(message)?.[1] ?? /did not connect (.+?) \(/.exec(message)?.[1] ?? name;
  return button(name, title);
}

function button(name: string, title: string): HTMLElement {
  return h(
    "a",
    { class: "button", href: `${location.origin}/connections/${name}/connect`, target: "_blank", rel: "noopener" },
    `Connect ${title}`,
  );
}
