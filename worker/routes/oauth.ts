import { AuthorizationError, authorizationErrorRedirect, CimdFetchError } from "@cloudflare/workers-oauth-provider";
import { Hono, type Context } from "hono";
import type { AppEnv } from "../env";
import { errorBody } from "../errors";
import { bodyLimit } from "../middleware/body-limit";
import { siteOf } from "../oauth/context";
import { saveConsent } from "../oauth/consents";
import { oauthApi, OAUTH_PATHS, type OAuthSite } from "../oauth/site";

function site(c: Context<AppEnv>): OAuthSite | Response {
  return siteOf(c) ?? c.json(errorBody("not_found", `OAuth is not served on ${new URL(c.req.url).host}.`), 404);
}

/** The library's own endpoints: metadata (RFC 8414, RFC 9728), token and revocation, registration (RFC 7591). */
function serve(pick: (site: OAuthSite) => OAuthSite["authorizationServer"] | OAuthSite["resourceServer"]) {
  return (c: Context<AppEnv>) => {
    const found = site(c);
    if (found instanceof Response) return found;
    return pick(found).fetch(c.req.raw, c.env, c.executionCtx as never);
  };
}

/** Failures of the authorize request: back to the client only when the library vouched for its redirect URI. */
function refuse(error: unknown): Response {
  if (error instanceof AuthorizationError && error.redirectTo) return Response.redirect(error.redirectTo, 302);
  if (error instanceof AuthorizationError || error instanceof CimdFetchError) {
    const message = error instanceof AuthorizationError ? error.description : "This client's metadata document could not be fetched or is invalid.";
    return new Response(`Sign-in refused: ${message}\n`, { status: 400, headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } });
  }
  throw error;
}

/**
 * OAuth 2.1 for MCP clients, served on the tenant's own origin before CORS (the library answers its
 * own preflights) and before any key check. GET /authorize checks the request (client, exact
 * redirect URI, resource, PKCE with S256) and sends the browser to the console's consent page, where
 * an admin approves or denies (routes/consents.ts).
 */
export const oauth = new Hono<AppEnv>()
  .get("/.well-known/oauth-authorization-server", serve((s) => s.authorizationServer))
  .get("/.well-known/oauth-authorization-server/*", serve((s) => s.authorizationServer))
  .on(["GET", "OPTIONS"], "/.well-known/oauth-protected-resource", serve((s) => s.resourceServer))
  .on(["GET", "OPTIONS"], "/.well-known/oauth-protected-resource/*", serve((s) => s.resourceServer))
  .options(OAUTH_PATHS.token, serve((s) => s.authorizationServer))
  .options(OAUTH_PATHS.register, serve((s) => s.authorizationServer))
  .post(OAUTH_PATHS.token, bodyLimit, serve((s) => s.authorizationServer))
  .post(OAUTH_PATHS.register, bodyLimit, serve((s) => s.authorizationServer))
  .get(OAUTH_PATHS.authorize, async (c) => {
    const found = site(c);
    if (found instanceof Response) return found;
    const api = oauthApi(found, c.env);
    try {
      const request = await api.parseAuthRequest(c.req.raw);
      // OAuth 2.1 lets confidential clients skip PKCE; MCP does not, so neither does toolgate.
      if (!request.codeChallenge || request.codeChallengeMethod !== "S256") {
        return Response.redirect(authorizationErrorRedirect(request, "invalid_request", "PKCE with code_challenge_method=S256 is required"), 302);
      }
      const description = await api.describeConsent(request);
      const consent = await api.beginConsent(request);
      await saveConsent(c.env.OAUTH_KV, consent.handle, description);
      // The handle travels in the fragment: never sent to a server, never in a Referer.
      consent.headers.set("Location", `/#/consent/${encodeURIComponent(consent.handle)}`);
      return new Response(null, { status: 302, headers: consent.headers });
    } catch (error) {
      return refuse(error);
    }
  });
