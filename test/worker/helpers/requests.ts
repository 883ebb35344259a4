import { env, exports } from "cloudflare:workers";
import { expect } from "vitest";
import { app } from "../../fixtures/app";
import { waitPast } from "../../wait";

export const ADMIN_KEY = "dev-admin-key";
export const CALL_KEY = "dev-call-key";
export const BASE = "http://127.0.0.1:8787";
/** SHA-256 of CALL_KEY, as a tenant configuration stores it. */
export const CALL_KEY_HASH = "06311ac15f2412fb7144a9977924f7a6a137403f1201f5bd0588cc02cd08e33f";

/** TOOLGATE_CONFIG text for a small tenant ("add" only) whose call key is CALL_KEY, with overrides. */
export function tenantConfig(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    name: "acme",
    tools: ["add"],
    keys: [{ name: "k", hash: CALL_KEY_HASH, scopes: ["call"] }],
    ...overrides,
  });
}

interface Options {
  method?: string;
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  /** Run against the app with another TOOLGATE_CONFIG (or other env vars) instead of the deployed Worker. */
  env?: Record<string, unknown>;
  /** The client's side of the request: aborting it is the client going away. */
  signal?: AbortSignal;
}

/** One request to the Worker under test; JSON bodies are serialised, the key defaults to the call key. */
export async function request(path: string, options: Options = {}): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? CALL_KEY : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    body =
      typeof options.body === "string" || options.body instanceof ReadableStream
        ? options.body
        : JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const init: RequestInit = {
    method: options.method ?? (body === undefined ? "GET" : "POST"),
    headers,
    ...(body === undefined ? {} : { body }),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  if (options.env) return app.request(`${BASE}${path}`, init, { ...env, ...options.env });
  return exports.default.fetch(new Request(`${BASE}${path}`, init));
}

export async function json<T = any>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/**
 * Until a parked call's approval has expired by the clock, as its ledger states it (`expiresAt`):
 * at once if its ledger's alarm already expired it.
 */
export async function untilApprovalDue(id: string, env?: Record<string, unknown>): Promise<void> {
  const { approval } = await json(await request(`/v1/calls/${id}`, env ? { env } : {}));
  if (approval.state === "requested") await waitPast(approval.expiresAt);
  else expect(approval.state).toBe("expired");
}
