import type { Context } from "hono";
import type { AuthMethods } from "../../src/contract/users";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { Hono } from "../hono-lazy";
import { identityLibrary, type OidcFailureReason } from "../identity-library";
import { type IdentityNamespace, tenantIdentity } from "../identity/address";
import { checkSameOrigin, wantsSession } from "../identity/ambient";
import { resolveUser } from "../identity/caller";
import { claimsFor, isLoopbackHost, type OidcConfig, oidcClientSecret } from "../identity/config";
import {
  cookieNames,
  readCookie,
  readSession,
  revokeSession,
  setCookie,
  signSession,
} from "../identity/session-cookie";
import { toBase64Url } from "../mcp/base64url";
import { hostAllowed } from "../mcp/transport/guard";

/**
 * People sign in to the console with the tenant's OpenID provider (identity.oidc), served before CORS
 * and before any key check:
 *   GET  /auth/methods   the sign-in page's buttons (AuthMethods)
 *   GET  /auth/login     ?return=#/… : a sign-in under way (single use, in the Identity object; the
 *                        browser holds only its random id, tg_login), then off to the provider
 *   GET  /auth/callback  the provider's answer: checked (lazy/oidc-client.ts), the session cookie set
 *   POST /auth/logout    Toolgate-Session: 1, same origin: the session revoked, its cookie cleared
 * Failures in the browser's path answer a text/plain page naming why, never a session.
 */

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

/** The configured provider, or 404 when this tenant signs no one in with one. */
function oidcOf(c: Context<AppEnv>): OidcConfig {
  const oidc = c.var.tenant.config.identity?.oidc;
  if (!oidc) throw new ApiError(404, "not_found", "This tenant signs no one in with an OpenID provider.");
  return oidc;
}

/** The request's origin, when it is one of this tenant's hosts, on https or loopback; else undefined. */
function originOf(c: Context<AppEnv>): string | undefined {
  const url = new URL(c.req.url);
  const { hosts } = c.var.tenant.config;
  if (!hostAllowed(url.host.toLowerCase(), hosts, c.var.tenant.name)) return undefined;
  if (url.protocol !== "https:" && !isLoopbackHost(url.hostname)) return undefined;
  return url.origin;
}

function identityOf(c: Context<AppEnv>) {
  return tenantIdentity(c.env as unknown as { IDENTITY: IdentityNamespace }, c.var.tenant.name);
}

/** The lazy module's view of identity.oidc, with its client secret. */
function clientConfig(c: Context<AppEnv>, oidc: OidcConfig) {
  const identity = c.var.tenant.config.identity!;
  return {
    issuer: oidc.issuer,
    clientId: oidc.clientId,
    clientSecret: oidcClientSecret(identity, c.env)!,
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

export const auth = new Hono<AppEnv>()
  .get("/auth/methods", (c) => {
    const identity = c.var.tenant.config.identity;
    const oidc = identity?.oidc;
    const methods: AuthMethods = {
      oidc: oidc ? { name: oidc.name ?? new URL(oidc.issuer).host } : null,
      access: identity?.access !== undefined,
    };
    return c.json(methods, 200, { "cache-control": "no-store" });
  })
  .get("/auth/login", async (c) => {
    const oidc = oidcOf(c);
    const returnTo = c.req.query("return") ?? "#/";
    if (!RETURN_TO.test(returnTo)) return page(400, 'return must be one of the console\'s routes ("#/…").');
    const origin = originOf(c);
    if (!origin) return page(400, `${new URL(c.req.url).host} is not one of this tenant's hosts (https or loopback).`);
    const redirectUri = `${origin}/auth/callback`;
    const library = await identityLibrary();
    const begun = await library.beginOidcLogin(clientConfig(c, oidc), redirectUri);
    if (!begun.ok) return page(503, `the provider cannot be reached (${begun.detail}). Retry later.`);
    const txId = toBase64Url(crypto.getRandomValues(new Uint8Array(32)));
    const stored = await identityOf(c)
      .object()
      .beginLogin({
        idHash: await sha256Hex(txId),
        state: begun.state,
        nonce: begun.nonce,
        verifier: begun.verifier,
        returnTo,
        origin,
        expiresAt: Date.now() + LOGIN_SECONDS * 1000,
      });
    if (stored !== "stored") throw new Error("the sign-in could not be stored");
    const names = cookieNames(new URL(c.req.url));
    const headers = new Headers({ location: begun.url, "cache-control": "no-store" });
    // Lax: it must come back on the provider's cross-site redirect to the callback.
    headers.append(
      "set-cookie",
      setCookie(names.login, txId, { secure: names.secure, sameSite: "Lax", maxAge: LOGIN_SECONDS }),
    );
    return new Response(null, { status: 302, headers });
  })
  .get("/auth/callback", async (c) => {
    const oidc = oidcOf(c);
    const url = new URL(c.req.url);
    const names = cookieNames(url);
    // The sign-in is used up whatever happens next: its cookie goes too.
    const headers = new Headers();
    headers.append("set-cookie", setCookie(names.login, "", { secure: names.secure, sameSite: "Lax", maxAge: 0 }));
    const txId = readCookie(c.req.header("Cookie"), names.login);
    if (!txId || txId.length > 64)
      return page(
        400,
        "no sign-in is under way in this browser (its cookie is missing or expired). Sign in again.",
        headers,
      );
    const identity = identityOf(c);
    const tx = await identity.object().takeLogin(await sha256Hex(txId));
    if (!tx) return page(400, "this sign-in was already used or has expired. Sign in again.", headers);
    if (tx.origin !== url.origin) return page(400, "this sign-in was started on another origin.", headers);
    const library = await identityLibrary();
    const finished = await library.finishOidcLogin(clientConfig(c, oidc), url.href, `${tx.origin}/auth/callback`, tx);
    if (!finished.ok) return page(statusOf(finished.reason), `${finished.reason}: ${finished.detail}.`, headers);
    let resolved: Awaited<ReturnType<typeof resolveUser>>;
    try {
      resolved = await resolveUser(c.var.tenant, finished.user);
    } catch (error) {
      if (error instanceof ApiError) return page(error.status, `${error.code}: ${error.message}`, headers);
      throw error;
    }
    const { key: _key, roles: _roles, ...user } = resolved.user;
    const hours = c.var.tenant.config.identity!.sessionHours;
    const { value } = await signSession(identity, user, hours);
    const lasting = { secure: names.secure, sameSite: "Strict", maxAge: hours * 3600 } as const;
    headers.append("set-cookie", setCookie(names.session, value, lasting));
    headers.append("set-cookie", setCookie(names.hint, "1", { ...lasting, script: true }));
    headers.set("location", `/${tx.returnTo}`);
    headers.set("cache-control", "no-store");
    return new Response(null, { status: 302, headers });
  })
  .post("/auth/logout", async (c) => {
    oidcOf(c);
    if (!wantsSession(c)) throw new ApiError(403, "cross_site", "Sign out from the console: send Toolgate-Session: 1.");
    checkSameOrigin(c);
    const names = cookieNames(new URL(c.req.url));
    const identity = identityOf(c);
    const value = readCookie(c.req.header("Cookie"), names.session);
    const session = value ? await readSession(identity, value) : undefined;
    if (session) await revokeSession(identity, session);
    const headers = new Headers({ "cache-control": "no-store" });
    const cleared = { secure: names.secure, sameSite: "Strict", maxAge: 0 } as const;
    headers.append("set-cookie", setCookie(names.session, "", cleared));
    headers.append("set-cookie", setCookie(names.hint, "", { ...cleared, script: true }));
    return new Response(null, { status: 204, headers });
  });
