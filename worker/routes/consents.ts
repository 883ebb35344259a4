import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Context } from "hono";
import { Hono } from "../hono-lazy";
import * as v from "valibot";
import type { AppEnv } from "../env";
import { ApiError } from "../errors";
import { readBody, RulesFields } from "../keys/rules";
import { requireScope } from "../middleware/auth";
import { siteOf } from "../oauth/context";
import { dropConsent, readConsent } from "../oauth/consents";
import type { GrantProps } from "../oauth/grant-caller";
import { oauthLibrary } from "../oauth-library";
import { GRANT_USER, oauthApi, oauthServers } from "../oauth/site";

const DecisionBody = v.strictObject({
  decision: v.picklist(["approve", "deny"], 'must be "approve" or "deny"'),
  /** What the grant may do: "call" (default) or "admin". */
  scope: v.optional(v.picklist(["call", "admin"], 'must be "call" or "admin"'), "call"),
  ...RulesFields,
});

async function api(c: Context<AppEnv>): Promise<OAuthHelpers> {
  const site = siteOf(c);
  const servers = site && (await oauthServers(site));
  if (!servers) throw new ApiError(404, "not_found", `OAuth is not served on ${new URL(c.req.url).host}.`);
  return oauthApi(servers, c.env);
}

function gone(): ApiError {
  return new ApiError(
    410,
    "consent_expired",
    "This sign-in request expired, was already decided, or was started in another browser. " +
      "Start the sign-in again from the client.",
  );
}

/**
 * The admin's side of OAuth (routes/oauth.ts sends the browser here through the console): a pending
 * authorization's details, the decision (approve with a scope and optional rules, or deny: either way
 * the answer is where to send the browser back to the client), and the grants made so far.
 */
export const consents = new Hono<AppEnv>()
  .use(requireScope("admin"))
  .get("/consents/:handle", async (c) => {
    await api(c);
    const consent = await readConsent(c.env.OAUTH_KV, c.req.param("handle"));
    if (!consent) throw gone();
    return c.json({ consent, tools: c.var.tenant.registry.list().map((tool) => tool.name) });
  })
  .post("/consents/:handle", async (c) => {
    const oauth = await api(c);
    const handle = c.req.param("handle");
    const body = await readBody(c.req.raw, DecisionBody);
    try {
      if (body.decision === "deny") {
        const denied = await oauth.denyConsent(c.req.raw, handle, { description: `denied by ${c.var.caller.keyName}` });
        await dropConsent(c.env.OAUTH_KV, handle);
        sendCookies(c, denied.headers);
        return c.json({ redirectTo: denied.redirectTo });
      }
      const approved = await oauth.approveConsent(c.req.raw, handle, { scope: [body.scope] });
      const { tools, ratePerMinute, expiresAt } = body;
      const props: GrantProps = {
        approvedBy: c.var.caller.keyName,
        ...(tools ? { tools } : {}),
        ...(ratePerMinute ? { ratePerMinute } : {}),
        ...(expiresAt ? { expiresAt } : {}),
      };
      const consent = await readConsent(c.env.OAUTH_KV, handle);
      const { redirectTo } = await oauth.completeAuthorization({
        request: approved.request,
        userId: GRANT_USER,
        // Listed to admins (GET /v1/oauth/grants): nothing secret.
        metadata: { clientName: consent?.clientName ?? approved.request.clientId, ...props },
        scope: approved.request.scope,
        props,
      });
      await dropConsent(c.env.OAUTH_KV, handle);
      sendCookies(c, approved.headers);
      return c.json({ redirectTo });
    } catch (error) {
      if (error instanceof (await oauthLibrary()).AuthorizationError) throw gone();
      throw error;
    }
  })
  .get("/grants", async (c) => {
    const page = await (await api(c)).listUserGrants(GRANT_USER, {
      limit: 100,
      ...(c.req.query("cursor") ? { cursor: c.req.query("cursor")! } : {}),
    });
    const grants = page.items.map((grant) => ({
      id: grant.id,
      clientId: grant.clientId,
      scope: grant.scope,
      createdAt: grant.createdAt * 1000,
      ...(grant.expiresAt ? { expiresAt: grant.expiresAt * 1000 } : {}),
      ...(grant.redirectUri ? { redirectUri: grant.redirectUri } : {}),
      ...(grant.metadata && typeof grant.metadata === "object"
        ? { details: grant.metadata as Record<string, unknown> }
        : {}),
    }));
    return c.json({ grants, ...(page.cursor ? { cursor: page.cursor } : {}) });
  })
  .post("/grants/:id/revoke", async (c) => {
    await (await api(c)).revokeGrant(c.req.param("id"), GRANT_USER);
    return c.json({ revoked: c.req.param("id") });
  });

/** The cookies the library asks to send (the consent's binding, cleared). */
function sendCookies(c: Context<AppEnv>, headers: Headers): void {
  for (const value of headers.getSetCookie()) c.header("Set-Cookie", value, { append: true });
}
