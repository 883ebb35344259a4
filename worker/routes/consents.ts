import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { Context } from "hono";
import { Hono } from "../hono-lazy";
import * as v from "valibot";
import { createMiddleware } from "hono/factory";
import type { GrantInfo } from "../../src/contract/oauth";
import type { AppEnv, Caller } from "../env";
import { ApiError } from "../errors";
import { type IdentityNamespace, tenantIdentity } from "../identity/address";
import { signsPeopleIn } from "../identity/config";
import { readBody, RulesFields } from "../keys/rules";
import { hasScope } from "../middleware/auth";
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

/** A grant's owner as the library keys it: the tenant, or a person's user key. */
const OWNER = /^(tenant|u_[A-Za-z0-9_-]{32})$/;
const RevokeBody = v.strictObject({
  /** Whose grant (admins): "tenant" (default) or the person's user key, as GET /grants lists it. */
  owner: v.optional(v.pipe(v.string(), v.regex(OWNER, 'must be "tenant" or a user key (u_…)'))),
});
/** Grant owners an admin's page lists at once (each owner's grants are read in parallel). */
const OWNERS_PER_PAGE = 20;

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

/** The tools the approver may hand on: their own (all of the tenant's when unlimited). */
function approverTools(c: Context<AppEnv>): string[] {
  const names = c.var.tenant.registry.list().map((tool) => tool.name);
  const own = c.var.caller.tools;
  return own ? names.filter((name) => own.has(name)) : names;
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

/** People's grants, `OWNERS_PER_PAGE` owners after `after` at a time, each owner's read in parallel. */
async function ownersGrants(c: Context<AppEnv>, oauth: OAuthHelpers, after: string) {
  if (!signsPeopleIn(c.var.tenant.config.identity)) return { grants: [] };
  const address = tenantIdentity(c.env as unknown as { IDENTITY: IdentityNamespace }, c.var.tenant.name);
  const owners = await address.object().grantOwners(after || null, OWNERS_PER_PAGE);
  const pages = await Promise.all(owners.map((owner) => oauth.listUserGrants(owner.key, { limit: 100 })));
  const more = owners.length === OWNERS_PER_PAGE ? { cursor: `o:${owners.at(-1)!.key}` } : {};
  return { grants: pages.flatMap((page) => page.items), ...more };
}

/**
 * An admin's page of grants: the tenant's (the library's cursor, `t:<cursor>`), then the people's,
 * `OWNERS_PER_PAGE` owners at a time (`o:<last owner's key>`). The page where the tenant's end goes
 * on with the first owners.
 */
async function adminGrants(c: Context<AppEnv>, oauth: OAuthHelpers, cursor: string) {
  if (cursor.startsWith("o:")) return ownersGrants(c, oauth, cursor.slice(2));
  const page = await oauth.listUserGrants(GRANT_USER, {
    limit: 100,
    ...(cursor.startsWith("t:") ? { cursor: cursor.slice(2) } : {}),
  });
  if (page.cursor) return { grants: page.items, cursor: `t:${page.cursor}` };
  const people = await ownersGrants(c, oauth, "");
  return { grants: [...page.items, ...people.grants], ...(people.cursor ? { cursor: people.cursor } : {}) };
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
    return c.json({ consent, tools: approverTools(c), approver });
  })
  .post("/consents/:handle", async (c) => {
    const oauth = await api(c);
    const handle = c.req.param("handle");
    const body = await readBody(c.req.raw, DecisionBody);
    const { caller, tenant } = c.var;
    const person = personOf(caller);
    if (body.decision === "approve") {
      if (body.scope === "admin" && !hasScope(caller, "admin"))
        throw new ApiError(403, "forbidden", "Only admins may grant admin.");
      const allowed = new Set(approverTools(c));
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
      const consent = await readConsent(c.env.OAUTH_KV, handle);
      const shownUser = person ? { user: { id: person.id, ...(person.name ? { name: person.name } : {}) } } : {};
      const { redirectTo } = await oauth.completeAuthorization({
        request: approved.request,
        userId: person ? person.key : GRANT_USER,
        // Listed to the person and to admins (GET /v1/oauth/grants): nothing secret.
        metadata: {
          clientName: consent?.clientName ?? approved.request.clientId,
          approvedBy: props.approvedBy,
          ...shownUser,
          ...rules,
        },
        scope: approved.request.scope,
        props,
      });
      if (person) {
        const address = tenantIdentity(c.env as unknown as { IDENTITY: IdentityNamespace }, tenant.name);
        await address
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
    return c.json({ grants: page.grants.map(grantInfo), ...(page.cursor ? { cursor: page.cursor } : {}) });
  })
  .post("/grants/:id/revoke", async (c) => {
    const oauth = await api(c);
    const id = c.req.param("id");
    const person = personOf(c.var.caller);
    const body = await readBody(c.req.raw, RevokeBody);
    if (person && !hasScope(c.var.caller, "admin")) {
      // A person revokes only their own: a grant not in their list is not found, whoever's it is.
      const own = await oauth.listUserGrants(person.key, { limit: 1000 });
      if (!own.items.some((grant) => grant.id === id))
        throw new ApiError(404, "not_found", `You have no connector with the grant ${id}.`);
      await oauth.revokeGrant(id, person.key);
    } else await oauth.revokeGrant(id, body.owner ?? GRANT_USER);
    return c.json({ revoked: id });
  });

/** The cookies the library asks to send (the consent's binding, cleared). */
function sendCookies(c: Context<AppEnv>, headers: Headers): void {
  for (const value of headers.getSetCookie()) c.header("Set-Cookie", value, { append: true });
}
