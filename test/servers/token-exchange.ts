import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { createRemoteJWKSet, decodeJwt, jwtVerify } from "jose";

/**
 * An RFC 8693 token exchange server on 127.0.0.1, as Keycloak's or Okta's token endpoint answers one:
 *   POST /token  grant_type token-exchange, its client authenticated (client_secret_basic); the
 *                subject token verified with jose against the `trusted` issuer it names (JWKS, audience); an
 *                opaque token of the subject's `sub` issued (`expires_in`: 300 s, or 30 s for the audience
 *                "short-lived"). A subject it does not trust: 400 invalid_grant.
 *   GET  /me     the user an issued token belongs to ({ sub }), for test/servers/connections-api.ts; 401 else
 *   GET  /exchanges  every exchange's parameters, the subject token left out
 */
export interface ExchangeTrust {
  jwksUri: string;
  issuer: string;
  audience: string;
}

export const SUBJECT_TYPES = ["jwt", "id_token", "access_token"].map(
  (type) => `urn:ietf:params:oauth:token-type:${type}`,
);
const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

async function body(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/** client_secret_basic (RFC 6749 §2.3.1): each part form-urlencoded, then base64. */
function authenticated(header: string | undefined, client: { id: string; secret: string }): boolean {
  const [scheme, encoded = ""] = (header ?? "").split(" ");
  if (scheme !== "Basic") return false;
  const [id = "", secret = ""] = Buffer.from(encoded, "base64").toString("utf8").split(":");
  const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, " "));
  return decode(id) === client.id && decode(secret) === client.secret;
}

export async function startTokenExchange(client: { id: string; secret: string }, trusted: ExchangeTrust[]) {
  const keySets = new Map(trusted.map((trust) => [trust.issuer, createRemoteJWKSet(new URL(trust.jwksUri))]));
  const issued = new Map<string, { sub: string; exp: number }>();
  const exchanges: Record<string, string | null>[] = [];
  const server = createServer(async (req, res) => {
    const send = (status: number, answer: unknown) => {
      res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
      res.end(JSON.stringify(answer));
    };
    const refuse = (error: string, description: string) => send(400, { error, error_description: description });
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (path === "/exchanges") return send(200, { exchanges });
    if (path === "/me") {
      const token = (req.headers.authorization ?? "").replace(/^Bearer /, "");
      const held = issued.get(token);
      if (!held || held.exp < Date.now()) return send(401, { error: "invalid_token" });
      return send(200, { sub: held.sub });
    }
    if (path !== "/token" || req.method !== "POST") return send(404, { error: "not found" });
    if (!authenticated(req.headers.authorization, client)) return send(401, { error: "invalid_client" });
    const params = await body(req);
    if (params.get("grant_type") !== "urn:ietf:params:oauth:grant-type:token-exchange")
      return refuse("unsupported_grant_type", "token exchange only");
    const subjectType = params.get("subject_token_type") ?? "";
    if (!SUBJECT_TYPES.includes(subjectType)) return refuse("invalid_request", "subject_token_type");
    const requested = params.get("requested_token_type") ?? ACCESS_TOKEN_TYPE;
    if (requested !== ACCESS_TOKEN_TYPE) return refuse("invalid_request", "only access tokens are issued");
    let sub: string;
    try {
      const subject = params.get("subject_token") ?? "";
      const trust = trusted.find((entry) => entry.issuer === decodeJwt(subject).iss);
      if (!trust) throw new Error("its issuer is not trusted");
      const { payload } = await jwtVerify(subject, keySets.get(trust.issuer)!, {
        issuer: trust.issuer,
        audience: trust.audience,
      });
      sub = String(payload.sub);
    } catch (error) {
      return refuse("invalid_grant", `the subject token is refused: ${(error as Error).message}`);
    }
    const audience = params.get("audience");
    exchanges.push({
      sub,
      subject_token_type: subjectType,
      requested_token_type: params.get("requested_token_type"),
      audience,
      resource: params.get("resource"),
      scope: params.get("scope"),
    });
    const lifetime = audience === "short-lived" ? 30 : 300;
    const token = `xt-${crypto.randomUUID()}`;
    issued.set(token, { sub, exp: Date.now() + lifetime * 1000 });
    send(200, {
      access_token: token,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: "Bearer",
      expires_in: lifetime,
      ...(params.has("scope") ? { scope: params.get("scope") } : {}),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
