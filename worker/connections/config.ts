import * as v from "valibot";
import { connectionName, oauthScope } from "../../src/adapters/oauth-names";
import { text, url } from "../config-blocks/fields";

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

/** The schema, built on first use: a tenant without `connections` never builds it. */
function buildConnectionsSchema() {
  const endpoint = v.optional(url());
  const ConnectionSchema = v.pipe(
    v.strictObject({
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
      clientSecret: v.pipe(
        v.string(),
        v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must name a Worker secret (an identifier)"),
      ),
      clientAuth: v.optional(
        v.picklist(
          ["client_secret_basic", "client_secret_post"],
          'must be "client_secret_basic" or "client_secret_post"',
        ),
        "client_secret_basic",
      ),
      /** Asked for on every connect, beside the scopes of the tools that need them. */
      scopes: v.optional(v.pipe(v.array(oauthScope), v.maxLength(64, "may name at most 64 scopes")), []),
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
  return v.pipe(
    v.record(connectionName, ConnectionSchema),
    v.check((connections) => Object.keys(connections).length <= 32, "may name at most 32 connections"),
  );
}

let built: ReturnType<typeof buildConnectionsSchema> | undefined;
/** The `connections` block's schema, built on first use. */
export const connectionsSchema = () => (built ??= buildConnectionsSchema());

export type ConnectionsConfig = v.InferOutput<ReturnType<typeof buildConnectionsSchema>>;
export type ConnectionConfig = ConnectionsConfig[string];
