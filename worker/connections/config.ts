import * as v from "valibot";
import { connectionName, oauthScope } from "../../src/adapters/oauth-names";
import { text, url } from "../config-blocks/fields";
import type { IdentityConfig } from "../identity/config";

/**
 * A tenant's `connections` block: the upstream OAuth providers through which tools act as the calling
 * user (toolgate is their OAuth client). Part of the optional blocks' module (config-blocks/lazy/entry.ts),
 * which a tenant without them never loads; its secrets are checked by client-secret.ts. Parsing only.
 */

/** Authorize parameters toolgate sets itself: `authorizeParams` may not name them. */
const RESERVED_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
];

/** RFC 8693 §3 token types, by the short names the configuration uses (lazy/exchange.ts has their URNs). */
type TokenTypeName = "access_token" | "id_token" | "jwt";

/** The schema, built on first use: a tenant without `connections` never builds it. */
function buildConnectionsSchema() {
  const endpoint = v.optional(url());
  const secretName = v.pipe(
    v.string(),
    v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must name a Worker secret (an identifier)"),
  );
  const clientAuth = v.optional(
    v.picklist(["client_secret_basic", "client_secret_post"], 'must be "client_secret_basic" or "client_secret_post"'),
    "client_secret_basic",
  );
  const scopes = v.optional(v.pipe(v.array(oauthScope), v.maxLength(64, "may name at most 64 scopes")), []);
  const tokenType = <const T extends TokenTypeName>(names: T[]) =>
    v.picklist(names, `must be ${names.map((name) => `"${name}"`).join(" or ")}`);
  const ConnectionSchema = v.pipe(
    v.strictObject({
      /** "oauth" (the default): each person connects in their browser (authorization code). */
      kind: v.optional(v.literal("oauth", 'must be "oauth" or "exchange"')),
      /** The console's button: "Connect <title>" (default: the connection's name). */
      title: v.optional(text(64)),
      /** An OAuth or OpenID issuer: its metadata (RFC 8414, then OpenID discovery) gives the endpoints. */
      issuer: endpoint,
      /** Or the endpoints themselves (GitHub, Slack: no metadata). Each overrides the discovered one. */
      authorizationEndpoint: endpoint,
      tokenEndpoint: endpoint,
      /** Where a disconnect revokes the tokens (RFC 7009), if the provider offers it. */
      revocationEndpoint: endpoint,
      clientId: text(256),
      /** The NAME of the Worker secret holding the client secret (wrangler secret put <name>). */
      clientSecret: secretName,
      clientAuth,
      /** Asked for on every connect, beside the scopes of the tools that need them. */
      scopes,
      /** How the `scope` parameter joins them: " " (RFC 6749) or "," (Slack). */
      scopeSeparator: v.optional(v.picklist([" ", ","], 'must be " " or ","'), " "),
      /**
       * The token endpoint's answers: "oauth" (RFC 6749) or "slack" (OAuth v2 user tokens: `ok`, the user's
       * token inside `authed_user`, scopes asked in `user_scope`, errors as HTTP 200 with `ok: false`).
       */
      tokenResponse: v.optional(v.picklist(["oauth", "slack"], 'must be "oauth" or "slack"'), "oauth"),
      /** PKCE with S256 (default true); false only for a provider that refuses it. */
      pkce: v.optional(v.boolean(), true),
      /** More authorize parameters (Google's access_type: "offline", prompt: "consent"). */
      authorizeParams: v.optional(
        v.pipe(
          v.record(
            v.pipe(
              v.string(),
              v.regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be a parameter name"),
              v.check((name) => !RESERVED_PARAMS.includes(name), "is set by toolgate"),
            ),
            v.pipe(v.string(), v.maxLength(512, "must be at most 512 characters")),
          ),
          v.check((params) => Object.keys(params).length <= 16, "may name at most 16 parameters"),
        ),
        {},
      ),
    }),
    v.check(
      (connection) =>
        connection.issuer !== undefined ||
        (connection.authorizationEndpoint !== undefined && connection.tokenEndpoint !== undefined),
      "must set issuer (its metadata names the endpoints), or authorizationEndpoint and tokenEndpoint",
    ),
  );
  /**
   * kind "exchange": no connect page. On a call, toolgate exchanges the user's identity token for the
   * provider's token (RFC 8693 token exchange); read as an "oauth" connection that never connects.
   */
  const ExchangeSchema = v.pipe(
    v.strictObject({
      kind: v.literal("exchange"),
      title: v.optional(text(64)),
      /** Its metadata (RFC 8414, then OpenID discovery) names the token endpoint. */
      issuer: endpoint,
      tokenEndpoint: endpoint,
      revocationEndpoint: endpoint,
      clientId: text(256),
      clientSecret: secretName,
      clientAuth,
      /** Asked for on every exchange, beside the scopes of the tools that need them. */
      scopes,
      /** The exchange's `audience` (RFC 8693 §2.1): the logical name of the service the token is for. */
      audience: v.optional(text(512)),
      /** The exchange's `resource`: the API's URL. */
      resource: endpoint,
      /** The token type asked for (default "access_token"). */
      requestedTokenType: v.optional(tokenType(["access_token", "jwt"]), "access_token"),
      /** What the subject token is declared as (default: "id_token" for a sign-in's, "jwt" for an app token). */
      subjectTokenType: v.optional(tokenType(["id_token", "jwt", "access_token"])),
    }),
    v.check(
      (connection) => connection.issuer !== undefined || connection.tokenEndpoint !== undefined,
      "must set issuer (its metadata names the token endpoint), or tokenEndpoint",
    ),
    v.transform((connection) => ({
      ...connection,
      scopeSeparator: " " as const,
      tokenResponse: "oauth" as const,
      pkce: false,
      authorizeParams: {} as Record<string, string>,
    })),
  );
  const AnyConnection = v.lazy((input: unknown) =>
    typeof input === "object" && input !== null && (input as { kind?: unknown }).kind === "exchange"
      ? ExchangeSchema
      : ConnectionSchema,
  );
  return v.pipe(
    v.record(connectionName, AnyConnection),
    v.check((connections) => Object.keys(connections).length <= 32, "may name at most 32 connections"),
  );
}

let built: ReturnType<typeof buildConnectionsSchema> | undefined;
/** The `connections` block's schema, built on first use. */
export const connectionsSchema = () => (built ??= buildConnectionsSchema());

export type ConnectionsConfig = v.InferOutput<ReturnType<typeof buildConnectionsSchema>>;
export type ConnectionConfig = ConnectionsConfig[string];
/** An exchange connection's configuration (kind "exchange"). */
export type ExchangeConfig = Extract<ConnectionConfig, { kind: "exchange" }>;

/**
 * What the connections lack of the tenant's identity block, or undefined: connecting needs a console
 * sign-in (identity.oidc, or Cloudflare Access); an exchange needs an
 * identity token of the user (a console sign-in's, or an app's signed user token).
 */
export function connectionsProblem(
  connections: ConnectionsConfig,
  identity: IdentityConfig | undefined,
): string | undefined {
  for (const [name, connection] of Object.entries(connections)) {
    if (connection.kind !== "exchange" && identity?.oidc === undefined && identity?.access === undefined)
      return (
        `connections.${name}: people connect in the console, so they must sign in to it with identity.oidc ` +
        "or identity.access"
      );
    if (connection.kind === "exchange" && identity?.oidc === undefined && !identity?.appTokens.length)
      return (
        `connections.${name}: an exchange trades the user's identity token, so the tenant needs ` +
        "identity.oidc (console sign-ins) or identity.appTokens (apps' signed user tokens)"
      );
  }
  return undefined;
}
