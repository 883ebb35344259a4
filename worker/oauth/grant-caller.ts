import type { Context } from "hono";
import * as v from "valibot";
import type { AppEnv, Caller } from "../env";
import { ApiError } from "../errors";
import { identityLibrary } from "../identity-library";
import { answered } from "../identity/answer";
import { bindingOf } from "../keys/cache";
import { SCOPES, type Scope } from "../tenant/config";
import { siteOf } from "./context";
import { looksLikeAccessToken, oauthServers } from "./site";

/** The person a grant is for, as their consent stored them: roles are recomputed from these groups at each use. */
const GrantUserSchema = v.object({
  id: v.string(),
  name: v.optional(v.string()),
  email: v.optional(v.string()),
  groups: v.array(v.string()),
  source: v.picklist(["oidc", "access"]),
});

/**
 * What a consent stored with a grant (encrypted by the library; only the token unlocks it): the tenant
 * it was made at (absent on grants made before people signed in), who approved it (a key's name or
 * `user:<id>`), the person it is for (absent: a tenant grant an admin key approved), and its rules.
 */
export const GrantPropsSchema = v.object({
  tenant: v.optional(v.string()),
  approvedBy: v.string(),
  user: v.optional(GrantUserSchema),
  tools: v.optional(v.array(v.string())),
  ratePerMinute: v.optional(v.number()),
  expiresAt: v.optional(v.number()),
});
export type GrantProps = v.InferOutput<typeof GrantPropsSchema>;

/** Scopes as the OAuth library reports them, keeping only toolgate's own. */
function scopesOf(list: readonly string[]): Set<Scope> {
  return new Set(list.filter((scope): scope is Scope => (SCOPES as readonly string[]).includes(scope)));
}

/**
 * The caller behind an OAuth access token issued by this tenant for this origin's resource, or null
 * when the token is not one (another shape, unknown, expired, revoked, another audience: the library
 * checks each; or made at another tenant). Only tokens of the library's shape cost a KV read; keys
 * never do. A person's grant acts for them, its rights narrowed to their roles now (403 no_role when
 * none includes them any more).
 */
export async function grantCaller(c: Context<AppEnv>, token: string): Promise<Caller | null> {
  if (!looksLikeAccessToken(token)) return null;
  const site = siteOf(c);
  const servers = site && (await oauthServers(site));
  if (!site || !servers) return null;
  const validated = await servers.authorizationServer.validateToken(site.resource, token, c.env);
  if (!validated) return null;
  const props = v.safeParse(GrantPropsSchema, validated.props);
  if (!props.success) return null;
  const tenant = c.get("tenant");
  if (props.output.tenant !== undefined && props.output.tenant !== tenant.name) return null;
  const grantId = token.split(":")[1]!;
  const { tools, ratePerMinute, expiresAt } = props.output;
  if (expiresAt !== undefined && expiresAt <= Date.now()) {
    throw new ApiError(401, "invalid_token", "This sign-in reached the end date its admin set; sign in again.", {
      "WWW-Authenticate": `Bearer realm="toolgate", error="invalid_token", resource_metadata="${site.metadataUrl}"`,
    });
  }
  const caller: Caller = {
    keyName: `oauth:${validated.clientId}#${grantId}`,
    scopes: scopesOf(validated.scope),
    binding: await bindingOf(`toolgate/grant/${grantId}`),
    ...(tools ? { tools: new Set(tools) } : {}),
    ...(ratePerMinute ? { rateLimits: [{ id: `grant:${grantId}`, perMinute: ratePerMinute }] } : {}),
    oauth: { clientId: validated.clientId, grantId, metadataUrl: site.metadataUrl },
  };
  const { user } = props.output;
  return user ? answered(await (await identityLibrary()).grantFor(tenant, caller, user)) : caller;
}
