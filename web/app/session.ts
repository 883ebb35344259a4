import { createClient, type ToolgateClient } from "../../src/client";
import type { WhoAmI } from "../../src/contract";
import type { AuthMethods } from "../../src/contract/users";

/**
 * Who uses the console: an API key, kept in sessionStorage (gone when the tab closes, not shared with
 * other tabs, never in a URL: the router uses the hash for views only), or else a person signed in
 * with the tenant's identity provider or Cloudflare Access, whose cookie or assertion the server
 * counts only when a request says `Toolgate-Session: 1` (a header no other origin's page may send).
 */
const STORAGE_KEY = "toolgate.key";
/** The console's marker for "use my sign-in" (worker/identity/ambient.ts). */
const SESSION_HEADER = "Toolgate-Session";

export interface Session {
  client: ToolgateClient;
  who: WhoAmI;
  admin: boolean;
  /** Signed in as a person (no key in this tab): how, for signing out. */
  person?: "oidc" | "access";
}

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

const UNAUTHORIZED = "toolgate:unauthorized";

/**
 * fetch that sends the person's sign-in when no key is sent, and announces a 401 (the key was revoked,
 * the session ended, or the tab holds a stale key), so the shell can ask again.
 */
const watchedFetch: typeof fetch = async (input, init) => {
  const headers = new Headers(init?.headers);
  if (!headers.has("Authorization")) headers.set(SESSION_HEADER, "1");
  const response = await fetch(input, { ...init, headers, credentials: "same-origin" });
  if (response.status === 401) window.dispatchEvent(new Event(UNAUTHORIZED));
  return response;
};

/** A client that reads the key on every request, so signing out takes effect at once. */
export const client = createClient({ key: () => storedKey(), fetch: watchedFetch });

export function onUnauthorized(handler: () => void): void {
  window.addEventListener(UNAUTHORIZED, handler);
}

/** Checks the key with the API; stores it only when it is valid. Rejects with the API's error. */
export async function signIn(key: string): Promise<Session> {
  const trial = createClient({ key });
  const who = await trial.whoami();
  sessionStorage.setItem(STORAGE_KEY, key);
  return sessionOf(who);
}

/**
 * Whether a person may be signed in: behind Access always; with the tenant's provider while its
 * script-readable hint cookie says so (the session cookie itself is HttpOnly).
 */
async function maySignedIn(): Promise<boolean> {
  if (/(^|;\s*)(__Host-)?tg_signed_in=1(;|$)/.test(document.cookie)) return true;
  try {
    const response = await fetch("/auth/methods", { credentials: "same-origin" });
    return response.ok && ((await response.json()) as AuthMethods).access;
  } catch {
    return false;
  }
}

/** The session of the key stored in this tab, else of the person's sign-in; null when there is neither. */
export async function resume(): Promise<Session | null> {
  if (!storedKey() && !(await maySignedIn())) return null;
  try {
    return sessionOf(await client.whoami());
  } catch {
    signOut();
    return null;
  }
}

/** Forgets the tab's key; a person's sign-in is ended with endPersonSession. */
export function signOut(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** Ends a person's sign-in: the server revokes the session (OIDC), or Access signs them out. */
export async function endPersonSession(session: Session): Promise<void> {
  if (session.person === "access") {
    window.location.assign("/cdn-cgi/access/logout");
    return;
  }
  await fetch("/auth/logout", { method: "POST", headers: { [SESSION_HEADER]: "1" }, credentials: "same-origin" });
}

function sessionOf(who: WhoAmI): Session {
  const person = storedKey() === null && who.user && (who.user.source === "oidc" || who.user.source === "access");
  return {
    client,
    who,
    admin: who.key.scopes.includes("admin"),
    ...(person ? { person: who.user!.source as "oidc" | "access" } : {}),
  };
}
