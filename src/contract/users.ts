/**
 * Who a call is for: the person behind a console sign-in, an MCP connector or a chat app's request.
 * Never a credential. Made by the Worker from a verified token or a trusted header (worker/identity/).
 */

/**
 * Where the user came from: a console sign-in with the tenant's OpenID provider ("oidc"), a Cloudflare
 * Access assertion ("access"), an app's signed user token ("app-token"), or the plain user id header a
 * key with `actAs: "header"` sends ("header").
 */
export type UserSource = "oidc" | "access" | "app-token" | "header";

/** A user as tools, hooks and records see them: the id the tenant's identity configuration reads. */
export interface CallUser {
  /** 1-256 characters, no control characters: the id claim (`sub` by default) or the header's value. */
  id: string;
  name?: string;
  email?: string;
}

/** A user with where they came from, as records, entries and `whoami` show them. */
export interface UserRef extends CallUser {
  source: UserSource;
}

/** GET /auth/methods: how people sign in to this tenant's console (none, the OpenID provider, or Access). */
export interface AuthMethods {
  /** The OpenID provider's button, named by `identity.oidc.name`; null when none is configured. */
  oidc: { name: string } | null;
  /** The console sits behind Cloudflare Access, which signs people in before they reach it. */
  access: boolean;
}
