import type { ConnectionClient, TokenSet } from "./oauth-client";
import { beginConnect, finishConnect } from "./oauth-client";
import { type OpRunner, runOp, TENANT_INDEX } from "./ops";
import { CONNECTED_ANSWER, connectKey } from "./parked";
import { connectScopes, type ScopeSources } from "./scopes";
import type { Owner, PendingConnect } from "./store";

/**
 * The connect pages, in the person's browser (worker/routes/connections.ts hands them over):
 *   GET /connections/:name/connect  the console session's person: a connect under way (single use, in
 *                                   their Connections object; the browser holds its random id in
 *                                   tg_connect), then off to the provider (code, PKCE S256, state)
 *   GET /connections/callback       the provider's answer: the state checked against that connect, the
 *                                   code exchanged, the tokens sealed in the person's object, and
 *                                   the person's calls parked on the connection resumed
 * Failures answer a text/plain page naming why; nothing is stored.
 */

/** How long a connect may take, from the connect route to its callback (seconds). */
export const CONNECT_SECONDS = 600;
/** The browser's cookie: `<user key>.<random id>`, Lax (it must come back on the provider's redirect). */
const COOKIE = "tg_connect";
const COOKIE_VALUE = /^(u_[A-Za-z0-9_-]{32})\.([A-Za-z0-9_-]{43})$/;

/** What the pages need of the Worker (this module imports nothing of it). */
export interface ConnectPageDeps {
  tenant: string;
  /** The request's origin when it is one of the tenant's hosts, on https or loopback. */
  origin: string | undefined;
  /** The library's view of a connection, its client secret read; undefined when the tenant has no such one. */
  client(name: string): ConnectionClient | undefined;
  /** Where the scopes a connect asks for come from. */
  config: ScopeSources;
  /** The signed-in person's user key (the console session), or undefined. */
  sessionUserKey(): Promise<string | undefined>;
  /**
   * Behind Cloudflare Access: the user key of the person the callback's Access assertion names (or
   * undefined), which must be the one who started the connect. Absent for other tenants.
   */
  callbackUserKey?: (() => Promise<string | undefined>) | undefined;
  /** The person's Connections object. */
  object(userKey: string): {
    beginConnect(idHash: string, pending: PendingConnect): Promise<boolean>;
    takeConnect(idHash: string): Promise<PendingConnect | null>;
    saveTokens(owner: Owner, connection: string, tokens: TokenSet, secrets: readonly string[]): Promise<void>;
  } & OpRunner;
  /** The tenant's connections secrets, current first. */
  secrets(): string[];
  /** Answers a waiting call of the tenant (worker/runner/answer.ts): all its questions answered, it runs on. */
  answerCall?(callId: string, responses: Record<string, { action: "accept" }>): Promise<unknown>;
}

const encoder = new TextEncoder();

function page(status: number, message: string, headers = new Headers()): Response {
  headers.set("content-type", "text/plain; charset=utf-8");
  headers.set("cache-control", "no-store");
  return new Response(`${message}\n`, { status, headers });
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

function cookie(value: string, secure: boolean, maxAge: number): string {
  return `${COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? "; Secure" : ""}`;
}

function readCookie(header: string | null): string {
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === COOKIE) return part.slice(at + 1).trim();
  }
  return "";
}

function failed(reason: string, detail: string, headers = new Headers()): Response {
  const status = reason === "provider_unreachable" ? 503 : reason === "provider_error" ? 403 : 400;
  return page(status, `The connection was not made: ${reason}: ${detail}.`, headers);
}

/** GET /connections/:name/connect. */
export async function connectPage(request: Request, name: string, deps: ConnectPageDeps): Promise<Response> {
  const client = deps.client(name);
  if (!client) return page(404, `This tenant has no connection "${name}".`);
  if (client.kind === "exchange")
    return page(
      400,
      `${client.title ?? name} needs no connect: toolgate exchanges your sign-in for its token when a tool needs it.`,
    );
  const { origin } = deps;
  if (!origin) return page(400, `${new URL(request.url).host} is not one of this tenant's hosts (https or loopback).`);
  const key = await deps.sessionUserKey();
  if (!key) return page(401, `Sign in to the console first (${origin}/), then open this link again.`);
  const scopes = connectScopes(deps.config, name);
  const begun = await beginConnect(client, `${origin}/connections/callback`, scopes);
  if (!begun.ok) return failed(begun.reason, begun.detail);
  const id = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const expiresAt = Date.now() + CONNECT_SECONDS * 1000;
  const pending = { connection: name, state: begun.state, verifier: begun.verifier, scopes, expiresAt };
  if (!(await deps.object(key).beginConnect(await sha256Hex(id), pending)))
    return page(429, "Too many connects are under way for you: finish or wait for one.");
  const headers = new Headers({ location: begun.url, "cache-control": "no-store" });
  headers.append("set-cookie", cookie(`${key}.${id}`, origin.startsWith("https:"), CONNECT_SECONDS));
  return new Response(null, { status: 302, headers });
}

/** GET /connections/callback. */
export async function callbackPage(request: Request, deps: ConnectPageDeps): Promise<Response> {
  const url = new URL(request.url);
  // The connect is used up whatever happens next: its cookie goes too.
  const headers = new Headers();
  headers.append("set-cookie", cookie("", url.protocol === "https:", 0));
  const match = COOKIE_VALUE.exec(readCookie(request.headers.get("cookie")));
  if (!match) return page(400, "No connect is under way in this browser (its cookie is missing or expired).", headers);
  const [, key, id] = match as unknown as [string, string, string];
  // Behind Access the callback's person must be the connect's (checked before the connect is used up).
  if (deps.callbackUserKey && (await deps.callbackUserKey()) !== key)
    return page(403, "This connect was started by another person: reach this page through Cloudflare Access as them.");
  const object = deps.object(key);
  const pending = await object.takeConnect(await sha256Hex(id));
  if (!pending) return page(400, "This connect was already used or has expired. Connect again.", headers);
  const client = deps.client(pending.connection);
  if (!client || !deps.origin) return page(400, "This connect is not valid here.", headers);
  const finished = await finishConnect(client, url.href, `${deps.origin}/connections/callback`, pending);
  if (!finished.ok) return failed(finished.reason, finished.detail, headers);
  const owner = { tenant: deps.tenant, userKey: key };
  await object.saveTokens(owner, pending.connection, finished.tokens, deps.secrets());
  await runOp(deps.object(TENANT_INDEX), "noteMember", key, pending.connection, true);
  // The calls parked on this connection that its tokens serve run on now (parked.ts).
  const parked = await runOp(object, "takeParked", pending.connection);
  const connected = { [connectKey(pending.connection)]: CONNECTED_ANSWER };
  await Promise.all(parked.map((id) => deps.answerCall?.(id, connected).catch(() => undefined)));
  const title = client.title ?? pending.connection;
  const next = parked.length > 0 ? "Your waiting calls run on now" : "Call the tool again";
  return page(200, `Connected to ${title}. ${next}; you may close this page.`, headers);
}
