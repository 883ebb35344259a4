import type { AuthRequest, ConsentDescription, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Context } from "hono";
import { Hono } from "../hono-lazy";
import type { AppEnv } from "../env";
import { errorBody } from "../errors";
import { bodyLimit } from "../middleware/body-limit";
import { siteOf } from "../oauth/context";
import { clientInfoMetadata, clientMetadataProblem, consentMetadata } from "../oauth/client-bounds";
import { saveConsent } from "../oauth/consents";
import { boundRegistration } from "../oauth/registration";
import { oauthLibrary, type OAuthLibrary } from "../oauth-library";
import { oauthApi, oauthServers, OAUTH_PATHS, resourceServerAt, type OAuthServers } from "../oauth/site";

async function servers(c: Context<AppEnv>): Promise<OAuthServers | Response> {
  const site = siteOf(c);
  return (
    (site && (await oauthServers(site))) ??
    c.json(errorBody("not_found", `OAuth is not served on ${new URL(c.req.url).host}.`), 404)
  );
}

/**
 * The library's own endpoints: metadata (RFC 8414, RFC 9728: each resource's at its path form),
 * token and revocation, registration (RFC 7591).
 */
function serve(role: "authorizationServer" | "resourceServer") {
  return async (c: Context<AppEnv>) => {
    const found = await servers(c);
    if (found instanceof Response) return found;
    const server =
      role === "authorizationServer" ? found.authorizationServer : resourceServerAt(found, new URL(c.req.url));
    return server.fetch(c.req.raw, c.env, executionOf(c) as never);
  };
}

/** The request's execution context; a stand-in where there is none (app.request in tests). */
function executionOf(c: Context<AppEnv>): Pick<ExecutionContext, "waitUntil" | "passThroughOnException"> {
  try {
    return c.executionCtx;
  } catch {
    return { waitUntil: () => undefined, passThroughOnException: () => undefined };
  }
}

/** The browser's page for a sign-in refused before the client's redirect URI could be trusted. */
function refusedPage(message: string): Response {
  const headers = { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" };
  return new Response(`Sign-in refused: ${message}\n`, { status: 400, headers });
}

/** Failures of the authorize request: back to the client only when the library vouched for its redirect URI. */
function refuse(lib: OAuthLibrary, error: unknown): Response {
  if (error instanceof lib.AuthorizationError && error.redirectTo) return Response.redirect(error.redirectTo, 302);
  if (error instanceof lib.AuthorizationError || error instanceof lib.CimdFetchError) {
    const unresolved = "This client's metadata document could not be fetched or is invalid.";
    return refusedPage(error instanceof lib.AuthorizationError ? error.description : unresolved);
  }
  throw error;
}

/**
 * The client's metadata beyond client-bounds.ts's bounds — a metadata document's (which no
 * registration checked), or a client registered before the bounds — as the page's message: its whole
 * metadata, then what the consent page would show and toolgate keep (a document may change between
 * reads).
 */
async function outOfBounds(api: OAuthHelpers, request: AuthRequest, shown: ConsentDescription) {
  const client = await api.lookupClient(request.clientId);
  const kept = client ? clientMetadataProblem(clientInfoMetadata(client)) : undefined;
  const problem = kept ?? clientMetadataProblem(consentMetadata(shown));
  return problem && `this client's metadata is out of bounds (invalid_client_metadata): ${problem}.`;
}

/**
 * OAuth 2.1 for MCP clients, served on the tenant's own origin before CORS (the library answers its
 * own preflights) and before any key check. GET /authorize checks the request (client, exact
 * redirect URI, resource, PKCE with S256) and sends the browser to the console's consent page, where
 * an admin approves or denies (routes/consents.ts).
 */
export const oauth = new Hono<AppEnv>()
  .get("/.well-known/oauth-authorization-server", serve("authorizationServer"))
  .get("/.well-known/oauth-authorization-server/*", serve("authorizationServer"))
  .on(["GET", "OPTIONS"], "/.well-known/oauth-protected-resource", serve("resourceServer"))
  .on(["GET", "OPTIONS"], "/.well-known/oauth-protected-resource/*", serve("resourceServer"))
  .options(OAUTH_PATHS.token, serve("authorizationServer"))
  .options(OAUTH_PATHS.register, serve("authorizationServer"))
  .post(OAUTH_PATHS.token, bodyLimit, serve("authorizationServer"))
  .post(OAUTH_PATHS.register, bodyLimit, boundRegistration, serve("authorizationServer"))
  .get(OAUTH_PATHS.authorize, async (c) => {
    const found = await servers(c);
    if (found instanceof Response) return found;
    const lib = await oauthLibrary();
    const api = oauthApi(found, c.env);
    try {
      const request = await api.parseAuthRequest(c.req.raw);
      // OAuth 2.1 lets confidential clients skip PKCE; MCP does not, so neither does toolgate.
      if (!request.codeChallenge || request.codeChallengeMethod !== "S256") {
        return Response.redirect(
          lib.authorizationErrorRedirect(
            request,
            "invalid_request",
            "PKCE with code_challenge_method=S256 is required",
          ),
          302,
        );
      }
      const description = await api.describeConsent(request);
      const problem = await outOfBounds(api, request, description);
      if (problem) return refusedPage(problem);
      const consent = await api.beginConsent(request);
      await saveConsent(c.env.OAUTH_KV, consent.handle, {
        ...description,
        ...(request.resource ? { resource: request.resource } : {}),
      });
      // The handle travels in the fragment: never sent to a server, never in a Referer.
      consent.headers.set("Location", `/#/consent/${encodeURIComponent(consent.handle)}`);
      return new Response(null, { status: 302, headers: consent.headers });
    } catch (error) {
      return refuse(lib, error);
    }
  });
