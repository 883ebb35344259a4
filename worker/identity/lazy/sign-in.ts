import { base64url } from "jose";
import { checkSameOrigin } from "./ambient";
import { resolveUser } from "./caller";
import { claimsFor } from "./claims";
import { beginOidcLogin, finishOidcLogin, type OidcFailureReason } from "./oidc-client";
import { Refused } from "./refused";
import { cookieNames, readCookie, readSession, revokeSession, setCookie, signSession } from "./session-cookie";
import type { IdentityAddressView, OidcView, TenantView } from "./types";

/**
 * The sign-in routes' work (worker/routes/auth.ts routes them here, for tenants with identity.oidc):
 *   GET  /auth/login     ?return=#/… : a sign-in under way (single use, in the Identity object; the
 *                        browser holds only its random id, tg_login), then off to the provider
 *   GET  /auth/callback  the provider's answer: checked (oidc-client.ts), the session cookie set
 *   POST /auth/logout    Toolgate-Session: 1, same origin: the session revoked, its cookie cleared
 * Failures in the browser's path answer a text/plain page naming why, never a session.
 */

/** A request to one of the sign-in routes, at a tenant with identity.oidc. */
export interface SignInRequest {
  request: Request;
  tenant: TenantView;
  identity: IdentityAddressView;
  /** The request's origin when it is one of the tenant's hosts, on https or loopback; else undefined. */
  origin: string | undefined;
  /** The OIDC client secret (the Worker secret identity.oidc.clientSecret names). */
  clientSecret: string;
  /**
   * Keeps the signed-in person's ID token (by their user key) for a tenant whose connections exchange
   * it for upstream tokens (RFC 8693); absent for other tenants.
   */
  keepIdToken?: ((userKey: string, idToken: { token: string; expiresAt: number }) => Promise<void>) | undefined;
}

/** Where the console goes back to after sign-in: one of its hash routes, never another site. */
const RETURN_TO = /^#\/[A-Za-z0-9/_.~%-]{0,512}$/;
/** How long a sign-in may take, from /auth/login to its callback (seconds). */
const LOGIN_SECONDS = 600;

const encoder = new TextEncoder();

/** The browser's page for a refused sign-in: plain text (a provider's words are never HTML here). */
function page(status: number, message: string, headers = new Headers()): Response {
  headers.set("content-type", "text/plain; charset=utf-8");
  headers.set("cache-control", "no-store");
  return new Response(`Sign-in refused: ${message}\n`, { status, headers });
}

/** The oidc-client's view of identity.oidc, with its client secret. */
function clientConfig(signIn: SignInRequest, oidc: OidcView) {
  const identity = signIn.tenant.config.identity!;
  return {
    issuer: oidc.issuer,
    clientId: oidc.clientId,
    clientSecret: signIn.clientSecret,
    clientAuth: oidc.clientAuth,
    scopes: oidc.scopes,
    algorithms: oidc.algorithms,
    requiredClaims: oidc.requiredClaims,
    claims: claimsFor(identity, "oidc"),
  };
}

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  return [...digest].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The status of a failed callback: the provider's fault 503, its refusal or the tenant's rules 403, else 400. */
function statusOf(reason: OidcFailureReason): number {
  if (reason === "provider_unreachable") return 503;
  if (reason === "provider_error" || reason === "claim_mismatch") return 403;
  return 400;
}

/** GET /auth/login: stores the sign-in under way and sends the browser to the provider. */
export async function login(signIn: SignInRequest, oidc: OidcView): Promise<Response> {
  const url = new URL(signIn.request.url);
  const returnTo = url.searchParams.get("return") ?? "#/";
  if (!RETURN_TO.test(returnTo)) return page(400, 'return must be one of the console\'s routes ("#/…").');
  const { origin } = signIn;
  if (!origin) return page(400, `${url.host} is not one of this tenant's hosts (https or loopback).`);
  const begun = await beginOidcLogin(clientConfig(signIn, oidc), `${origin}/auth/callback`);
  if (!begun.ok) return page(503, `the provider cannot be reached (${begun.detail}). Retry later.`);
  const txId = base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
  const stored = await signIn.identity.object().beginLogin({
    idHash: await sha256Hex(txId),
    state: begun.state,
    nonce: begun.nonce,
    verifier: begun.verifier,
    returnTo,
    origin,
    expiresAt: Date.now() + LOGIN_SECONDS * 1000,
  });
  if (stored !== "stored") throw new Error("the sign-in could not be stored");
  const names = cookieNames(url);
  const headers = new Headers({ location: begun.url, "cache-control": "no-store" });
  // Lax: it must come back on the provider's cross-site redirect to the callback.
  headers.append(
    "set-cookie",
    setCookie(names.login, txId, { secure: names.secure, sameSite: "Lax", maxAge: LOGIN_SECONDS }),
  );
  return new Response(null, { status: 302, headers });
}

/** GET /auth/callback: takes the sign-in (single use), finishes the code flow, sets the session cookie. */
export async function callback(signIn: SignInRequest, oidc: OidcView): Promise<Response> {
  const url = new URL(signIn.request.url);
  const names = cookieNames(url);
  // The sign-in is used up whatever happens next: its cookie goes too.
  const headers = new Headers();
  headers.append("set-cookie", setCookie(names.login, "", { secure: names.secure, sameSite: "Lax", maxAge: 0 }));
  const txId = readCookie(signIn.request.headers.get("Cookie") ?? undefined, names.login);
  if (!txId || txId.length > 64)
    return page(
      400,
      "no sign-in is under way in this browser (its cookie is missing or expired). Sign in again.",
      headers,
    );
  const { identity, tenant } = signIn;
  const tx = await identity.object().takeLogin(await sha256Hex(txId));
  if (!tx) return page(400, "this sign-in was already used or has expired. Sign in again.", headers);
  if (tx.origin !== url.origin) return page(400, "this sign-in was started on another origin.", headers);
  const finished = await finishOidcLogin(clientConfig(signIn, oidc), url.href, `${tx.origin}/auth/callback`, tx);
  if (!finished.ok) return page(statusOf(finished.reason), `${finished.reason}: ${finished.detail}.`, headers);
  let resolved: Awaited<ReturnType<typeof resolveUser>>;
  try {
    resolved = await resolveUser(tenant, finished.user);
  } catch (error) {
    if (error instanceof Refused) return page(error.refusal.status, `${error.refusal.code}: ${error.message}`, headers);
    throw error;
  }
  await signIn.keepIdToken?.(resolved.user.key, finished.idToken);
  const { key: _key, roles: _roles, ...user } = resolved.user;
  const hours = tenant.config.identity!.sessionHours;
  const { value } = await signSession(identity, user, hours);
  const lasting = { secure: names.secure, sameSite: "Strict", maxAge: hours * 3600 } as const;
  headers.append("set-cookie", setCookie(names.session, value, lasting));
  headers.append("set-cookie", setCookie(names.hint, "1", { ...lasting, script: true }));
  headers.set("location", `/${tx.returnTo}`);
  headers.set("cache-control", "no-store");
  return new Response(null, { status: 302, headers });
}

/** POST /auth/logout (Toolgate-Session: 1 checked by the route): revokes the session, clears its cookies. */
export async function logout(signIn: SignInRequest): Promise<Response> {
  const { request, identity } = signIn;
  checkSameOrigin(request);
  const names = cookieNames(new URL(request.url));
  const value = readCookie(request.headers.get("Cookie") ?? undefined, names.session);
  const session = value ? await readSession(identity, value) : undefined;
  if (session) await revokeSession(identity, session);
  const headers = new Headers({ "cache-control": "no-store" });
  const cleared = { secure: names.secure, sameSite: "Strict", maxAge: 0 } as const;
  headers.append("set-cookie", setCookie(names.session, "", cleared));
  headers.append("set-cookie", setCookie(names.hint, "", { ...cleared, script: true }));
  return new Response(null, { status: 204, headers });
}
