import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Context } from "hono";
import { Hono } from "../hono-lazy";
import * as v from "valibot";
import { createMiddleware } from "hono/factory";
import type { GrantInfo } from "../../src/contract/oauth";
import type { AppEnv, Caller } from "../env";
import { ApiError } from "../errors";
import { identityLibrary } from "../identity-library";
import { identityOf } from "../identity/ambient";
import { answered } from "../identity/answer";
import { signsPeopleIn } from "../identity/settings";
import { readBody, RulesFields } from "../keys/rules";
import { hasScope } from "../middleware/auth";
import { siteOf } from "../oauth/context";
import { endpointView } from "../endpoints/view";
import { dropConsent, type PendingConsent, readConsent } from "../oauth/consents";
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

/** A grant's owner as the library keys it: the tenant, or a person's user key. */
const OWNER = /^(tenant|u_[A-Za-z0-9_-]{32})$/;
const RevokeBody = v.strictObject({
  /** Whose grant (admins): "tenant" (default) or the person's user key, as GET /grants lists it. */
  owner: v.optional(v.pipe(v.string(), v.regex(OWNER, 'must be "tenant" or a user key (u_…)'))),
});

/** The person deciding (their own console session or Access), else undefined for an admin key. */
function personOf(caller: Caller) {
  return caller.person && caller.user ? caller.user : undefined;
}

/**
 * Who may decide consents and see connectors: a person signed in to the console (for themselves), or
 * an admin key (for the tenant). A key acting for a user, a grant, or a key without admin may not.
 */
const requireApprover = createMiddleware<AppEnv>(async (c, next) => {
  const caller = c.var.caller;
  if (!personOf(caller) && (caller.user || caller.oauth || !hasScope(caller, "admin")))
    throw new ApiError(
      403,
      "consent_needs_person",
      "Connecting a client takes a person signed in to the console (for themselves) or an admin key.",
    );
  await next();
});

/** The curated endpoint (`/mcp/<name>`) a pending grant is for; undefined for /mcp. */
function endpointOf(consent: PendingConsent | null): string | undefined {
  const path = consent?.resource ? new URL(consent.resource).pathname : "";
  return /^\/mcp\/([a-z0-9-]+)$/.exec(path)?.[1];
}

/**
 * The tools the approver may hand on: their own (all of the tenant's when unlimited), within the
 * curated endpoint the grant is for, whose token reaches no other tool.
 */
async function approverTools(c: Context<AppEnv>, endpoint: string | undefined): Promise<string[]> {
  const { tenant } = c.var;
  // An endpoint taken out of the configuration since the sign-in began: its grant cannot be made.
  if (endpoint && !tenant.config.endpoints?.[endpoint]) throw gone();
  const names = endpoint ? (await endpointView(tenant, endpoint)).registry.names() : tenant.registry.names();
  const own = c.var.caller.tools;
  return own ? names.filter((name) => own.has(name)) : [...names];
}

/** A grant as GET /grants lists it. */
function grantInfo(grant: Grant): GrantInfo {
  const details =
    grant.metadata && typeof grant.metadata === "object" ? (grant.metadata as Record<string, unknown>) : undefined;
  const user = details?.user as { id: string; name?: string } | undefined;
  return {
    id: grant.id,
    clientId: grant.clientId,
    scope: grant.scope,
    createdAt: grant.createdAt * 1000,
    ...(grant.expiresAt ? { expiresAt: grant.expiresAt * 1000 } : {}),
    ...(grant.redirectUri ? { redirectUri: grant.redirectUri } : {}),
    ...(details ? { details } : {}),
    owner: grant.userId,
    user: user ? { id: user.id, ...(user.name ? { name: user.name } : {}) } : null,
  };
}

type Grant = Awaited<ReturnType<OAuthHelpers["listUserGrants"]>>["items"][number];

/**
 * An admin's page of grants: the tenant's alone, or where people sign in, the tenant's then each
 * person's (the identity module's adminGrants, with its own cursors).
 */
async function adminGrants(c: Context<AppEnv>, oauth: OAuthHelpers, cursor: string) {
  if (signsPeopleIn(c.var.tenant.config.identity))
    return (await identityLibrary()).adminGrants(oauth, identityOf(c), GRANT_USER, cursor);
  return oauth.listUserGrants(GRANT_USER, { limit: 100, ...(cursor ? { cursor } : {}) });
}

/**
 * The approver's side of OAuth (routes/oauth.ts sends the browser here through the console): a pending
 * authorization's details, the decision (approve with a scope and optional rules, or deny: either way
 * the answer is where to send the browser back to the client), and the grants made so far. A person
 * signed in approves for themselves (the grant acts for them, within their roles); an admin key for
 * the tenant. Only admins may grant admin; nobody grants tools they may not use.
 */
export const consents = new Hono<AppEnv>()
  .use(requireApprover)
  .get("/consents/:handle", async (c) => {
    await api(c);
    const consent = await readConsent(c.env.OAUTH_KV, c.req.param("handle"));
    if (!consent) throw gone();
    const person = personOf(c.var.caller);
    const approver = {
      ...(person ? { user: { id: person.id, ...(person.name ? { name: person.name } : {}) } } : {}),
      admin: hasScope(c.var.caller, "admin"),
    };
    const { resource, ...shown } = consent;
    const endpoint = endpointOf(consent);
    const server = { ...(resource ? { resource } : {}), ...(endpoint ? { endpoint } : {}) };
    return c.json({ consent: shown, server, tools: await approverTools(c, endpoint), approver });
  })
  .post("/consents/:handle", async (c) => {
    const oauth = await api(c);
    const handle = c.req.param("handle");
    const body = await readBody(c.req.raw, DecisionBody);
    const { caller, tenant } = c.var;
    const person = personOf(caller);
    const consent = await readConsent(c.env.OAUTH_KV, handle);
    if (body.decision === "approve") {
      if (body.scope === "admin" && !hasScope(caller, "admin"))
        throw new ApiError(403, "forbidden", "Only admins may grant admin.");
      const allowed = new Set(await approverTools(c, endpointOf(consent)));
      const others = (body.tools ?? []).filter((tool) => !allowed.has(tool));
      if (others.length > 0)
        throw new ApiError(400, "invalid_body", `tools: not yours to grant: ${others.join(", ")}.`);
    }
    try {
      if (body.decision === "deny") {
        const denied = await oauth.denyConsent(c.req.raw, handle, {
          description: `denied by ${person ? `user:${person.id}` : caller.keyName}`,
        });
        await dropConsent(c.env.OAUTH_KV, handle);
        sendCookies(c, denied.headers);
        return c.json({ redirectTo: denied.redirectTo });
      }
      const approved = await oauth.approveConsent(c.req.raw, handle, { scope: [body.scope] });
      const { tools, ratePerMinute, expiresAt } = body;
      const rules = {
        ...(tools ? { tools } : {}),
        ...(ratePerMinute ? { ratePerMinute } : {}),
        ...(expiresAt ? { expiresAt } : {}),
      };
      const props: GrantProps = {
        tenant: tenant.name,
        approvedBy: person ? `user:${person.id}` : caller.keyName,
        ...(person
          ? {
              user: {
                id: person.id,
                ...(person.name ? { name: person.name } : {}),
                ...(person.email ? { email: person.email } : {}),
                groups: [...person.groups],
                source: person.source as "oidc" | "access",
              },
            }
          : {}),
        ...rules,
      };
      const shownUser = person ? { user: { id: person.id, ...(person.name ? { name: person.name } : {}) } } : {};
      const { redirectTo } = await oauth.completeAuthorization({
        request: approved.request,
        userId: person ? person.key : GRANT_USER,
        // Listed to the person and to admins (GET /v1/oauth/grants): nothing secret.
        metadata: {
          clientName: consent?.clientName ?? approved.request.clientId,
          ...(endpointOf(consent) ? { endpoint: endpointOf(consent) } : {}),
          approvedBy: props.approvedBy,
          ...shownUser,
          ...rules,
        },
        scope: approved.request.scope,
        props,
      });
      if (person) {
        await identityOf(c)
          .object()
          .noteGrantOwner(person.key, { id: person.id, ...(person.name ? { name: person.name } : {}) });
      }
      await dropConsent(c.env.OAUTH_KV, handle);
      sendCookies(c, approved.headers);
      return c.json({ redirectTo });
    } catch (error) {
      if (error instanceof (await oauthLibrary()).AuthorizationError) throw gone();
      throw error;
    }
  })
  .get("/grants", async (c) => {
    const oauth = await api(c);
    const person = personOf(c.var.caller);
    const cursor = c.req.query("cursor") ?? "";
    // Admins (keys and people) list every grant; other people their own.
    if (person && !hasScope(c.var.caller, "admin")) {
      const page = await oauth.listUserGrants(person.key, { limit: 100, ...(cursor ? { cursor } : {}) });
      return c.json({ grants: page.items.map(grantInfo), ...(page.cursor ? { cursor: page.cursor } : {}) });
    }
    const page = await adminGrants(c, oauth, cursor);
    return c.json({ grants: page.items.map(grantInfo), ...(page.cursor ? { cursor: page.cursor } : {}) });
  })
  .post("/grants/:id/revoke", async (c) => {
    const oauth = await api(c);
    const id = c.req.param("id");
    const person = personOf(c.var.caller);
    const body = await readBody(c.req.raw, RevokeBody);
    // A person revokes only their own: a grant not in their list is not found, whoever's it is.
    if (person && !hasScope(c.var.caller, "admin"))
      answered(await (await identityLibrary()).revokeOwnGrant(oauth, person.key, id));
    else await oauth.revokeGrant(id, body.owner ?? GRANT_USER);
    return c.json({ revoked: id });
  });

/** The cookies the library asks to send (the consent's binding, cleared). */
function sendCookies(c: Context<AppEnv>, headers: Headers): void {
  for (const value of headers.getSetCookie()) c.header("Set-Cookie", value, { append: true });
}
