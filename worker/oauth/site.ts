import type { OAuthAuthorizationServer, OAuthHelpers, OAuthResourceServer } from "@cloudflare/workers-oauth-provider";
import { SCOPES } from "../tenant/config";
import { oauthLibrary, type OAuthLibrary } from "../oauth-library";

/**
 * OAuth 2.1 for MCP clients (@cloudflare/workers-oauth-provider). Each tenant is its own Worker, so
 * its issuer is the origin it is reached on; its protected resources are `<origin>/mcp` and each
 * curated endpoint's `<origin>/mcp/<name>`: a token is bound to one of them (RFC 8707) and refused at
 * the others. The HTTP API of the same Worker accepts `/mcp`'s tokens too, never an endpoint's. The
 * library keeps clients, grants and tokens (hashed) in OAUTH_KV.
 *
 * The library is imported on first use (an OAuth path, or a token of its shape; worker/oauth-library.ts),
 * so no isolate parses it at startup and requests with keys never evaluate it.
 */

export const OAUTH_PATHS = { authorize: "/authorize", token: "/token", register: "/register" } as const;
/** Access tokens live 15 minutes; refresh tokens (rotated on every use) 30 days. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
/** Every grant belongs to the tenant (the library keys grants by user): admins list and revoke them all. */
export const GRANT_USER = "tenant";
/** What any access needs, named in the 401 challenge so clients ask for it first. */
export const REQUIRED_SCOPES = ["call"];

/** Where OAuth is served for one origin of a tenant's Worker, as one request reached it. */
export interface OAuthSite {
  tenant: string;
  origin: string;
  /** The protected resource of the request's route: tokens carry it as their audience. */
  resource: string;
  /** Where its RFC 9728 metadata is (the 401 challenge names it). */
  metadataUrl: string;
  /** Every protected resource of this origin: `/mcp`'s first, then each endpoint's. */
  resources: readonly string[];
}

const METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The site at `origin`, for the request's curated endpoint (`endpoint`) or /mcp and the HTTP API. */
export function siteAt(
  origin: string,
  tenant: string,
  endpoints: readonly string[] = [],
  endpoint?: string,
): OAuthSite {
  const path = endpoint === undefined ? "/mcp" : `/mcp/${endpoint}`;
  return {
    tenant,
    origin,
    resource: `${origin}${path}`,
    metadataUrl: `${origin}${METADATA_PATH}${path}`,
    resources: [`${origin}/mcp`, ...endpoints.map((name) => `${origin}/mcp/${name}`)],
  };
}

/** The library's two roles for a site: one authorization server, one resource server per resource. */
export interface OAuthServers {
  authorizationServer: OAuthAuthorizationServer<Record<string, unknown>>;
  /** By resource; `/mcp`'s first. */
  resourceServers: ReadonlyMap<string, OAuthResourceServer<Record<string, unknown>>>;
}

/** The resource server whose RFC 9728 metadata is at this path (path form), else `/mcp`'s. */
export function resourceServerAt(servers: OAuthServers, url: URL): OAuthResourceServer<Record<string, unknown>> {
  const resource = `${url.origin}${url.pathname.slice(METADATA_PATH.length)}`;
  return servers.resourceServers.get(resource) ?? servers.resourceServers.values().next().value!;
}

const built = new Map<string, OAuthServers | null>();
const MAX_SITES = 16;

function build(lib: OAuthLibrary, site: OAuthSite): OAuthServers | null {
  const { origin, resources } = site;
  try {
    const authorizationServer = new lib.OAuthAuthorizationServer<Record<string, unknown>>({
      issuer: origin,
      resources,
      defaultResource: resources[0]!,
      authorizeEndpoint: `${origin}${OAUTH_PATHS.authorize}`,
      tokenEndpoint: `${origin}${OAUTH_PATHS.token}`,
      clientRegistrationEndpoint: `${origin}${OAUTH_PATHS.register}`,
      scopesSupported: [...SCOPES],
      accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTTL: REFRESH_TOKEN_TTL_SECONDS,
      clientIdMetadataDocumentEnabled: true,
    });
    const resourceServer = (resource: string) => {
      const path = resource === resources[0] ? [] : [resource.slice(origin.length)];
      return new lib.OAuthResourceServer<Record<string, unknown>>({
        resourceMetadata: {
          resource,
          authorization_servers: [origin],
          bearer_methods_supported: ["header"],
          // An endpoint's is named after it: "toolgate (acme, /mcp/ops)".
          resource_name: `toolgate (${[site.tenant, ...path].join(", ")})`,
        },
        requiredScopes: REQUIRED_SCOPES,
        validateToken: (env) => (audience, token) => authorizationServer.validateToken(audience, token, env),
        // Only its metadata is served through it; /mcp itself is toolgate's (middleware/auth.ts checks tokens).
        handler: { fetch: () => new Response(null, { status: 404 }) },
      });
    };
    return { authorizationServer, resourceServers: new Map(resources.map((r) => [r, resourceServer(r)])) };
  } catch {
    // An origin the library refuses as an issuer (plain http off loopback): no OAuth there.
    return null;
  }
}

/** The library's servers for a site, built once per isolate; null where the library refuses the origin. */
export async function oauthServers(site: OAuthSite): Promise<OAuthServers | null> {
  const key = `${site.tenant}\n${site.resources.join("\n")}`;
  let servers = built.get(key);
  if (servers === undefined) {
    const lib = await oauthLibrary();
    servers = built.get(key);
    if (servers === undefined) {
      if (built.size >= MAX_SITES) built.delete(built.keys().next().value!);
      built.set(key, (servers = build(lib, site)));
    }
  }
  return servers;
}

export function oauthApi(servers: OAuthServers, env: Record<string, unknown>): OAuthHelpers {
  return servers.authorizationServer.getOAuthApi(env);
}

/** The library's access tokens are `<user>:<grant>:<secret>`; toolgate's own keys never hold a colon. */
export function looksLikeAccessToken(token: string): boolean {
  const parts = token.split(":");
  return parts.length === 3 && parts.every((part) => part.length > 0);
}
