import { createClient, type ToolgateClient } from "../../src/client";
import type { WhoAmI } from "../../src/contract";

/**
 * The signed-in key lives in sessionStorage: it is gone when the tab closes, is not shared with
 * other tabs, and never appears in a URL (the router uses the hash for views only).
 */
const STORAGE_KEY = "toolgate.key";

export interface Session {
  client: ToolgateClient;
  who: WhoAmI;
  admin: boolean;
}

export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

const UNAUTHORIZED = "toolgate:unauthorized";

/** fetch that announces a 401 (the key was revoked or the tab holds a stale one), so the shell can ask again. */
const watchedFetch: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
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

/** The session of the key already stored in this tab, or null. */
export async function resume(): Promise<Session | null> {
  if (!storedKey()) return null;
  try {
    return sessionOf(await client.whoami());
  } catch {
    signOut();
    return null;
  }
}

export function signOut(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}

function sessionOf(who: WhoAmI): Session {
  return { client, who, admin: who.key.scopes.includes("admin") };
}
