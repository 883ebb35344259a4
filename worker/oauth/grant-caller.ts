import type { Context } from "hono";
import * as v from "valibot";
import type { AppEnv, Caller } from "../env";
import { ApiError } from "../errors";
import { bindingOf } from "../keys/cache";
import { SCOPES, type Scope } from "../tenant/config";
import { siteOf } from "./context";
import { looksLikeAccessToken, oauthServers } from "./site";

/** What an admin's consent stored with a grant (encrypted by the library; only the token unlocks it). */
export const GrantPropsSchema = v.object({
  approvedBy: v.string(),
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
 * when the token is not one (another shape, unknown, expired, revoked, or another audience: the
 * library checks each). Only tokens of the library's shape cost a KV read; keys never do.
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
  const grantId = token.split(":")[1]!;
  const { tools, ratePerMinute, expiresAt } = props.output;
  if (expiresAt !== undefined && expiresAt <= Date.now()) {
    throw new ApiError(401, "invalid_token", "This sign-in reached the end date its admin set; sign in again.", {
      "WWW-Authenticate": `Bearer realm="toolgate", error="invalid_token", resource_metadata="${site.metadataUrl}"`,
    });
  }
  return {
    keyName: `oauth:${validated.clientId}#${grantId}`,
    scopes: scopesOf(validated.scope),
    binding: await bindingOf(`toolgate/grant/${grantId}`),
    ...(tools ? { tools: new Set(tools) } : {}),
    ...(ratePerMinute ? { rateLimits: [{ id: `grant:${grantId}`, perMinute: ratePerMinute }] } : {}),
    oauth: { clientId: validated.clientId, grantId, metadataUrl: site.metadataUrl },
  };
}
