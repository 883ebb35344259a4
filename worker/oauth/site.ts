import { OAuthAuthorizationServer, OAuthResourceServer, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { SCOPES } from "../config";

/**
 * OAuth 2.1 for MCP clients (@cloudflare/workers-oauth-provider). Each tenant is its own Worker, so
 * its issuer is the origin it is reached on and its one protected resource is `<origin>/mcp`:
 * a token is bound to this tenant's endpoint (RFC 8707) and refused anywhere else. The HTTP API of the
 * same Worker accepts it too. The library keeps clients, grants and tokens (hashed) in OAUTH_KV.
 */

export const OAUTH_PATHS = { authorize: "/authorize", token: "/token", register: "/register" } as const;
/** Access tokens live 15 minutes; refresh tokens (rotated on every use) 30 days. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
/** Every grant belongs to the tenant (the library keys grants by user): admins list and revoke them all. */
export const GRANT_USER = "tenant";
/** What any access needs, named in the 401 challenge so clients ask for it first. */
export const REQUIRED_SCOPES = ["call"];

export interface OAuthSite {
  origin: string;
  /** The protected resource: tokens carry it as their audience. */
  resource: string;
  /** Where its RFC 9728 metadata is (the 401 challenge names it). */
  metadataUrl: string;
  authorizationServer: OAuthAuthorizationServer<Record<string, unknown>>;
  resourceServer: OAuthResourceServer<Record<string, unknown>>;
}

const sites = new Map<string, OAuthSite | null>();
const MAX_SITES = 16;

function build(origin: string, tenant: string): OAuthSite | null {
  const resource = `${origin}/mcp`;
  try {
    const authorizationServer = new OAuthAuthorizationServer<Record<string, unknown>>({
      issuer: origin,
      resources: [resource],
      authorizeEndpoint: `${origin}${OAUTH_PATHS.authorize}`,
      tokenEndpoint: `${origin}${OAUTH_PATHS.token}`,
      clientRegistrationEndpoint: `${origin}${OAUTH_PATHS.register}`,
      scopesSupported: [...SCOPES],
      accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
      clientIdMetadataDocumentEnabled: true,
    });
    const resourceServer = new OAuthResourceServer<Record<string, unknown>>({
      resourceMetadata: { resource, authorization_servers: [origin], bearer_methods_supported: ["header"], resource_name: `toolgate (${tenant})` },
      requiredScopes: REQUIRED_SCOPES,
      validateToken: (env) => (audience, token) => authorizationServer.validateToken(audience, token, env),
      // Only its metadata is served through it; /mcp itself is toolgate's (middleware/auth.ts checks tokens).
      handler: { fetch: () => new Response(null, { status: 404 }) },
    });
    return { origin, resource, metadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`, authorizationServer, resourceServer };
  } catch {
    // An origin the library refuses as an issuer (plain http off loopback): no OAuth there.
    return null;
  }
}

/** The OAuth site of one origin of this tenant's Worker, built once per isolate. */
export function oauthSite(origin: string, tenant: string): OAuthSite | null {
  const key = `${tenant}\n${origin}`;
  let site = sites.get(key);
  if (site === undefined) {
    if (sites.size >= MAX_SITES) sites.delete(sites.keys().next().value!);
    sites.set(key, (site = build(origin, tenant)));
  }
  return site;
}

export function oauthApi(site: OAuthSite, env: Record<string, unknown>): OAuthHelpers {
  return site.authorizationServer.getOAuthApi(env);
}

/** The library's access tokens are `<user>:<grant>:<secret>`; toolgate's own keys never hold a colon. */
export function looksLikeAccessToken(token: string): boolean {
  const parts = token.split(":");
  return parts.length === 3 && parts.every((part) => part.length > 0);
}
