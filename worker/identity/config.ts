import * as v from "valibot";
import { classifyIpLiteral } from "../../src/ip";
import { ConfigError } from "../errors";
import type { ClaimNames } from "./lazy/claims";
import type { ActAs } from "./lazy/types";
import { RulesFields } from "../keys/rules";
import { intIn } from "../tenant/int-in";
import { SCOPES } from "../tenant/scopes";

/**
 * A tenant's `identity` block: who the people behind calls are (a console sign-in with an OpenID
 * provider or Cloudflare Access, an app's signed user tokens), which claims name them, and what each
 * role may do. Spread into the tenant's schema (tenant/config.ts); absent, calls have no users and
 * nothing here runs. Parsing only: no library, no Durable Object, no fetch.
 */

/** What a key may send to act for users (`keys[].actAs`, POST /v1/keys): see ActAs in src/contract/keys.ts. */
export const ACT_AS = ["token", "header"] as const satisfies readonly ActAs[];
export type { ActAs } from "./lazy/types";

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

/** Hosts plain http may reach: wrangler dev and the test servers. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, "$1");
  return host === "localhost" || classifyIpLiteral(host) === "loopback";
}

/** Why a URL of the configuration is refused (https; http only on loopback; no credentials or fragment). */
function urlProblem(text: string, origin: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname)))
    return "must be https (http only on loopback)";
  if (url.username || url.password || url.hash || text.includes("#")) return "must hold no credentials or fragment";
  if (origin && (url.pathname !== "/" || url.search || text.endsWith("/")))
    return "must be an origin like https://acme.cloudflareaccess.com (no path)";
  return undefined;
}

/** A URL field of the configuration: see urlProblem (`origin`: an origin, no path). */
export const url = (origin = false) =>
  v.pipe(
    v.string(),
    v.maxLength(512, "must be at most 512 characters"),
    v.check(
      (text) => urlProblem(text, origin) === undefined,
      (issue) => urlProblem(issue.input as string, origin) ?? "is invalid",
    ),
  );

/** A text field of the configuration: 1 to `max` characters. */
export const text = (max: number) =>
  v.pipe(v.string(), v.minLength(1, "must not be empty"), v.maxLength(max, `must be at most ${max} characters`));

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
const identitySchema = () => (built ??= buildIdentitySchema());

export type { ClaimNames };

export type IdentityConfig = v.InferOutput<ReturnType<typeof buildIdentitySchema>>;
export type Role = NonNullable<IdentityConfig["roles"]>[string];
export type OidcConfig = NonNullable<IdentityConfig["oidc"]>;
export type AccessConfig = NonNullable<IdentityConfig["access"]>;
export type AppTokenIssuer = IdentityConfig["appTokens"][number];

/** The tenant schema's identity field. */
export const IDENTITY_FIELDS = { identity: v.optional(v.lazy(identitySchema)) };

/** Whether people sign in to this tenant (OIDC or Access): only then does it have an Identity object. */
export function signsPeopleIn(identity: IdentityConfig | undefined): boolean {
  return identity?.oidc !== undefined || identity?.access !== undefined;
}

/**
 * The OIDC client secret, from the Worker secret `identity.oidc.clientSecret` names; undefined when no
 * OIDC is configured. Throws ConfigError when the secret is not set (readyTenant checks it on every
 * request, so a deploy without it fails at once, naming it).
 */
export function oidcClientSecret(
  identity: IdentityConfig | undefined,
  env: Record<string, unknown>,
): string | undefined {
  if (!identity?.oidc) return undefined;
  const name = identity.oidc.clientSecret;
  const value = env[name];
  if (typeof value !== "string" || value === "")
    throw new ConfigError(
      `identity.oidc.clientSecret: the Worker secret ${name} is not set (wrangler secret put ${name})`,
    );
  return value;
}
