/**
 * The demo identity provider: oidc-provider (the certified OpenID Connect implementation) on
 * 127.0.0.1, with two people, so a newcomer and the tests sign in through a real provider. Started by
 * the worker tests (test/servers/worker-setup.ts), the console tests (test/e2e/global-setup.ts) and
 * `npm run dev:idp` (scripts/dev.ts --idp). Node only (oidc-provider 9 needs Node 22: npm scripts, npx).
 *
 * alice: Alice Admin, alice@example.test, groups admins and staff
 * bob:   Bob Builder, bob@example.test, group staff
 * Any password (devInteractions); any other login fails. Name, email and groups come through
 * userinfo, not the ID token (conformIdTokenClaims), so toolgate's userinfo fallback meets a real provider.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";

export const DEMO_CLIENT_ID = "toolgate-demo";

const USERS: Record<string, { name: string; email: string; email_verified: boolean; groups: string[] }> = {
  alice: { name: "Alice Admin", email: "alice@example.test", email_verified: true, groups: ["admins", "staff"] },
  bob: { name: "Bob Builder", email: "bob@example.test", email_verified: true, groups: ["staff"] },
};

export interface DemoIdp {
  /** The issuer: http://127.0.0.1:<port>. */
  url: string;
  clientId: string;
  clientSecret: string;
  stop(): Promise<void>;
}

/** Starts the provider on 127.0.0.1 (`port` 0 or absent: any free port) for toolgate's redirect URIs. */
export async function startDemoIdp(options: {
  port?: number;
  redirectUris: string[];
  /** Issue refresh tokens, and access tokens lasting this many seconds (an upstream provider of connections). */
  refreshTokens?: { accessTokenSeconds: number };
  /** The client's secret (default: random), when the Worker's env must hold it before the provider starts. */
  clientSecret?: string;
}): Promise<DemoIdp> {
  const clientSecret = options.clientSecret ?? randomBytes(24).toString("base64url");
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), alg: "RS256", use: "sig", kid: randomBytes(6).toString("hex") };
  // The issuer names the port, which listen() picks: a server first, the provider's callback mounted on it.
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const server = createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()));
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(url, {
    clients: [
      {
        client_id: DEMO_CLIENT_ID,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: options.refreshTokens ? ["authorization_code", "refresh_token"] : ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    findAccount: (_ctx, sub) => {
      const user = USERS[sub];
      return user && { accountId: sub, claims: () => ({ sub, ...user }) };
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
    scopes: ["openid", "email", "profile", "groups"],
    // Revocation (RFC 7009) for the upstream provider of connections: a disconnect revokes its tokens.
    features: {
      devInteractions: { enabled: true },
      revocation: {
        enabled: Boolean(options.refreshTokens),
        // Set, so the provider prints no notice: a client revokes only its own tokens.
        allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId?: string }) =>
          token.clientId === client.clientId,
      },
    },
    pkce: { required: () => true },
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString("hex")] },
    // Set, so the provider does not print a notice for each default it falls back to.
    ttl: {
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      AccessToken: options.refreshTokens?.accessTokenSeconds ?? 600,
      IdToken: 600,
      RefreshToken: 3600,
    },
    ...(options.refreshTokens ? { issueRefreshToken: () => true } : {}),
    renderError: (ctx: { type: string; body: string }, out: Record<string, unknown>) => {
      ctx.type = "text/plain";
      ctx.body = `Sign-in failed: ${String(out.error)}: ${String(out.error_description ?? "")}\n`;
    },
  });
  // Plain http on loopback: the provider would otherwise refuse to set its cookies without TLS.
  provider.proxy = false;
  handler = provider.callback();
  return {
    url,
    clientId: DEMO_CLIENT_ID,
    clientSecret,
    stop: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
