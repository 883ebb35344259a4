import type { Context } from "hono";
import type { AuthMethods } from "../../src/contract/users";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { Hono } from "../hono-lazy";
import { identityLibrary } from "../identity-library";
import { identityOf, wantsSession } from "../identity/ambient";
import { answered } from "../identity/answer";
import { isLoopbackHost } from "../identity/loopback";
import { oidcClientSecret } from "../identity/settings";
import { hostAllowed } from "../mcp/transport/guard";
import { type ConnectionsNamespace, userConnections } from "../connections/address";
import { connectionSecrets } from "../connections/secret";

/**
 * People sign in to the console with the tenant's OpenID provider (identity.oidc), served before CORS
 * and before any key check:
 *   GET  /auth/methods   the sign-in page's buttons (AuthMethods)
 *   GET  /auth/login     ?return=#/… : a sign-in under way, then off to the provider
 *   GET  /auth/callback  the provider's answer: the session cookie set
 *   POST /auth/logout    Toolgate-Session: 1, same origin: the session revoked, its cookie cleared
 * The work is the library module's (lazy/sign-in.ts), loaded by the first sign-in: a tenant without
 * identity.oidc answers 404 here and never loads it.
 */

/** The request's origin, when it is one of this tenant's hosts, on https or loopback; else undefined. */
function originOf(c: Context<AppEnv>): string | undefined {
  const url = new URL(c.req.url);
  const { hosts } = c.var.tenant.config;
  if (!hostAllowed(url.host.toLowerCase(), hosts, c.var.tenant.name)) return undefined;
  if (url.protocol !== "https:" && !isLoopbackHost(url.hostname)) return undefined;
  return url.origin;
}

/**
 * For a tenant with an exchange connection: keeps a person's ID token at sign-in in their Connections
 * object, sealed, as the subject token their calls exchange (RFC 8693). Other tenants keep nothing.
 */
function keepIdTokenOf(c: Context<AppEnv>) {
  const { name, config } = c.var.tenant;
  if (!Object.values(config.connections ?? {}).some((connection) => connection.kind === "exchange")) return undefined;
  const env = c.env as unknown as { CONNECTIONS: ConnectionsNamespace };
  return async (userKey: string, idToken: { token: string; expiresAt: number }) => {
    const owner = { tenant: name, userKey };
    await userConnections(env, name, userKey).run("keepSubject", owner, idToken, connectionSecrets(c.env));
  };
}

/** The route's answer from the library module; 404 when this tenant signs no one in with a provider. */
async function signIn(c: Context<AppEnv>, route: "login" | "callback" | "logout"): Promise<Response> {
  const identity = c.var.tenant.config.identity;
  if (!identity?.oidc) throw new ApiError(404, "not_found", "This tenant signs no one in with an OpenID provider.");
  if (route === "logout" && !wantsSession(c))
    throw new ApiError(403, "cross_site", "Sign out from the console: send Toolgate-Session: 1.");
  const request = {
    request: c.req.raw,
    tenant: c.var.tenant,
    identity: identityOf(c),
    origin: originOf(c),
    clientSecret: oidcClientSecret(identity, c.env)!,
    keepIdToken: keepIdTokenOf(c),
  };
  return answered(await (await identityLibrary()).signInAnswer(request, route));
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
  .get("/auth/login", (c) => signIn(c, "login"))
  .get("/auth/callback", (c) => signIn(c, "callback"))
  .post("/auth/logout", (c) => signIn(c, "logout"));
