/**
 * Slack's OAuth v2 token answers (docs.slack.dev: oauth.v2.access, token rotation), which are not RFC
 * 6749's: HTTP 200 with `ok`, an error as `ok: false` and `error`; for a code, the user's token inside
 * `authed_user` (the top level holds a bot token, if any); for a refresh, the rotated token at the top
 * level. A connection with `tokenResponse: "slack"` reads them here. Details never hold a token.
 */

/** A token answer read: the tokens, or why not (as oauth-client.ts's ConnectFailure). */
export type SlackTokens =
  | { ok: true; tokens: { accessToken: string; refreshToken?: string; expiresAt?: number; scopes: string[] } }
  | { ok: false; reason: "provider_unreachable" | "token_refused" | "invalid_response"; detail: string };

type Grant = { access_token?: unknown; refresh_token?: unknown; expires_in?: unknown; scope?: unknown };

/** The user token: `authed_user`'s (a code) or the top level's (a refresh); the old refresh token if none. */
export async function slackTokens(
  response: Response,
  asked: readonly string[],
  now: number,
  previous?: { refreshToken?: string },
): Promise<SlackTokens> {
  if (response.status >= 500)
    return { ok: false, reason: "provider_unreachable", detail: `Slack answered HTTP ${response.status}` };
  let body: { ok?: unknown; error?: unknown; authed_user?: Grant } & Grant;
  try {
    body = (await response.json()) as typeof body;
  } catch {
    return { ok: false, reason: "invalid_response", detail: "Slack's token answer is not JSON" };
  }
  if (body.ok !== true) {
    const error = typeof body.error === "string" ? body.error.slice(0, 100) : "no error named";
    return { ok: false, reason: "token_refused", detail: `Slack's token endpoint answered ${error}` };
  }
  const grant: Grant = body.authed_user?.access_token !== undefined ? body.authed_user : body;
  if (typeof grant.access_token !== "string" || grant.access_token === "")
    return { ok: false, reason: "invalid_response", detail: "Slack's answer holds no user token (ask user scopes)" };
  const refreshToken = typeof grant.refresh_token === "string" ? grant.refresh_token : previous?.refreshToken;
  const scopes = typeof grant.scope === "string" ? grant.scope.split(",").filter(Boolean) : [...asked];
  return {
    ok: true,
    tokens: {
      accessToken: grant.access_token,
      ...(refreshToken ? { refreshToken } : {}),
      ...(typeof grant.expires_in === "number" ? { expiresAt: now + grant.expires_in * 1000 } : {}),
      scopes,
    },
  };
}
