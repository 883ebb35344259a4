import * as v from "valibot";
import { text, url } from "../config-blocks/fields";
import type { ClaimNames } from "./lazy/claims";
import { RulesFields } from "../keys/rules-fields";
import { intIn } from "../tenant/int-in";
import { SCOPES } from "../tenant/scopes";

/**
 * A tenant's `identity` block: who the people behind calls are (a console sign-in with an OpenID
 * provider or Cloudflare Access, an app's signed user tokens), which claims name them, and what each
 * role may do. Part of the optional blocks' module (config-blocks/lazy/entry.ts), which a tenant without
 * them never loads; what the bundle reads of it is in settings.ts. Parsing only.
 */

/**
 * ID-token, assertion and app-token signatures toolgate accepts: asymmetric ones only. `none` and the
 * HMAC family (HS*) never: with a public key set, HS256 would let anyone who read the key sign.
 */
export const JWT_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "EdDSA",
] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];
const DEFAULT_ALGORITHMS: JwtAlgorithm[] = ["RS256", "ES256"];

/**
 * The schema, built on first use: a tenant without `identity` never builds it (no work at startup).
 * Inner constants are the fields' parts.
 */
function buildIdentitySchema() {
  /**
   * A claim's name, or a dot path into nested claims ("custom.groups"). A name holding dots (Auth0's
   * "https://acme.example/groups") is read whole when the token has it.
   */
  const claimPath = v.pipe(v.string(), v.regex(/^\S{1,128}$/, "must be a claim name or dot path (1-128, no spaces)"));

  /** Which claims give the user's id, name, email and groups. Each source may override some. */
  const ClaimsSchema = v.strictObject({
    id: v.optional(claimPath),
    name: v.optional(claimPath),
    email: v.optional(claimPath),
    groups: v.optional(claimPath),
  });
  const algorithms = v.optional(
    v.pipe(
      v.array(v.picklist(JWT_ALGORITHMS, `must be one of ${JWT_ALGORITHMS.join(", ")} (never none or HS*)`)),
      v.minLength(1, "must name at least one algorithm"),
    ),
    DEFAULT_ALGORITHMS,
  );

  const secretName = v.pipe(
    v.string(),
    v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must name a Worker secret (an identifier)"),
  );

  const OidcSchema = v.strictObject({
    /** The console's button: "Sign in with <name>" (default: the issuer's host). */
    name: v.optional(text(64)),
    issuer: url(),
    clientId: text(256),
    /** The NAME of the Worker secret holding the client secret (wrangler secret put <name>). */
    clientSecret: secretName,
    clientAuth: v.optional(
      v.picklist(
        ["client_secret_basic", "client_secret_post"],
        'must be "client_secret_basic" or "client_secret_post"',
      ),
      "client_secret_basic",
    ),
    scopes: v.optional(
      v.pipe(
        v.array(v.pipe(v.string(), v.regex(/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/, "must be an OAuth scope"))),
        v.check((list) => list.includes("openid"), 'must include "openid"'),
        v.maxLength(32, "may name at most 32 scopes"),
      ),
      ["openid", "email", "profile"],
    ),
    /** The ID token's signature algorithms accepted (the allow-list; default RS256, ES256). */
    algorithms,
    /** Claims that must equal these values (Google's hd, Entra ID's tid, email_verified: true). */
    requiredClaims: v.optional(
      v.pipe(
        v.record(claimPath, v.union([v.string(), v.number(), v.boolean()], "must be a string, number or boolean")),
        v.check((claims) => Object.keys(claims).length <= 16, "may name at most 16 claims"),
      ),
      {},
    ),
    claims: v.optional(ClaimsSchema, {}),
  });

  const AccessSchema = v.strictObject({
    /** The team's origin, https://<team>.cloudflareaccess.com: its certs sign the assertions. */
    teamDomain: url(true),
    /** The Access application's AUD tag. */
    audience: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,256}$/, "must be the application's AUD tag")),
    claims: v.optional(ClaimsSchema, {}),
  });

  const AppTokensSchema = v.strictObject({
    /** The `iss` of the app's user tokens: selects this entry. */
    issuer: text(512),
    audience: text(512),
    jwksUri: url(),
    algorithms,
    /** Longest lifetime (exp - iat) accepted, 60 s to 1 day (default 1 hour): a cached token lives that long. */
    maxLifetimeSeconds: v.optional(intIn(60, 86_400), 3600),
    claims: v.optional(ClaimsSchema, {}),
  });

  const listed = (max: number, what: string) =>
    v.optional(
      v.pipe(v.array(text(256)), v.minLength(1, `must name at least one ${what}`), v.maxLength(max, `at most ${max}`)),
    );

  const RoleSchema = v.pipe(
    v.strictObject({
      /** Users in any of these groups have the role; "*" is everyone signed in. */
      groups: listed(256, "group"),
      /** Users with one of these ids or emails have the role. */
      users: listed(1000, "user"),
      /** What the role may do (default: call). */
      scopes: v.optional(
        v.pipe(
          v.array(v.picklist(SCOPES, 'must be "call" or "admin"')),
          v.minLength(1, "must name at least one scope"),
        ),
      ),
      /** Only these tools (absent: every tool). */
      tools: RulesFields.tools,
      /** Calls per minute per user, across isolates (absent: no limit). */
      ratePerMinute: RulesFields.ratePerMinute,
    }),
    v.check((role) => role.groups !== undefined || role.users !== undefined, "must name groups or users"),
  );
  const roleName = v.pipe(v.string(), v.regex(/^[a-zA-Z0-9_.-]{1,64}$/, "must be 1-64 letters, digits, _ . or -"));

  const IdentitySchema = v.pipe(
    v.strictObject({
      /** People sign in to the console with this OpenID provider. */
      oidc: v.optional(OidcSchema),
      /** People reach the console through Cloudflare Access, which vouches for them. */
      access: v.optional(AccessSchema),
      /** Chat apps' signed user tokens, sent by keys with `actAs`. */
      appTokens: v.optional(
        v.pipe(
          v.array(AppTokensSchema),
          v.maxLength(16, "may list at most 16 issuers"),
          v.check(
            (list) => new Set(list.map((entry) => entry.issuer)).size === list.length,
            "must list each issuer once",
          ),
        ),
        [],
      ),
      /** Which claims name the user (defaults: sub, name, email, groups); each source may override. */
      claims: v.optional(ClaimsSchema, {}),
      /** Role name → who has it and what it may do. Absent: every user may call every tool. */
      roles: v.optional(
        v.pipe(
          v.record(roleName, RoleSchema),
          v.check((roles) => Object.keys(roles).length <= 64, "may name at most 64 roles"),
        ),
      ),
      /** How long a console sign-in lasts, 1-24 hours (default 8). */
      sessionHours: v.optional(intIn(1, 24), 8),
    }),
    v.check((identity) => !(identity.oidc && identity.access), "oidc and access cannot both be set"),
  );
  return IdentitySchema;
}

let built: ReturnType<typeof buildIdentitySchema> | undefined;
/** The `identity` block's schema, built on first use. */
export const identitySchema = () => (built ??= buildIdentitySchema());

export type { ClaimNames };

export type IdentityConfig = v.InferOutput<ReturnType<typeof buildIdentitySchema>>;
export type Role = NonNullable<IdentityConfig["roles"]>[string];
export type OidcConfig = NonNullable<IdentityConfig["oidc"]>;
export type AccessConfig = NonNullable<IdentityConfig["access"]>;
export type AppTokenIssuer = IdentityConfig["appTokens"][number];
