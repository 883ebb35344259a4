import { describe, expect, it } from "vitest";
import {
  CONNECTIONS_CONFIG,
  CONNECTIONS_SECRET,
  connectionsUpstream,
  rewriteTokens,
  storedTokens,
} from "../helpers/connections";
import { CALL_KEY, json, request } from "../helpers/requests";
import { idpSecretEnv, signIn, toToolgate } from "../helpers/sign-in";

/**
 * A Slack connection (`tokenResponse: "slack"`), against a fake Slack on 127.0.0.1 that answers as
 * Slack's OAuth v2 documents: scopes asked in user_scope, the user's token inside authed_user, errors
 * as HTTP 200 with ok: false, rotating refresh tokens. Two people connect; each call of the tool sends
 * that person's token.
 */

const slack = connectionsUpstream.slack;
/** A tenant of its own per test: the isolate keeps a token it got for minutes, per tenant. */
const configOf = (name: string) => ({
  ...CONNECTIONS_CONFIG,
  name,
  connections: {
    slack: {
      title: "Slack",
      authorizationEndpoint: `${slack.url}/oauth/v2/authorize`,
      tokenEndpoint: `${slack.url}/api/oauth.v2.access`,
      clientId: slack.clientId,
      clientSecret: "SLACK_CLIENT_SECRET",
      tokenResponse: "slack",
      scopeSeparator: ",",
    },
  },
  http: [
    {
      name: "slack_profile",
      description: "The caller's Slack profile",
      url: `${slack.url}/api/users.profile.get`,
      connection: { name: "slack", scopes: ["users.profile:read"] },
    },
  ],
});
const envOf = (name: string) => ({
  TOOLGATE_CONFIG: JSON.stringify(configOf(name)),
  ...idpSecretEnv(),
  SLACK_CLIENT_SECRET: slack.clientSecret,
  TOOLGATE_CONNECTIONS_SECRET: CONNECTIONS_SECRET,
});
type Env = ReturnType<typeof envOf>;

/** The person signs in and connects Slack; answers the provider's authorize URL. */
async function connectSlack(login: string, env: Env): Promise<URL> {
  const { jar } = await signIn(login, env);
  const started = await toToolgate("/connections/slack/connect", env, jar);
  expect(started.status, await started.clone().text()).toBe(302);
  const authorize = new URL(started.headers.get("location")!);
  // The fake Slack's consent: the person is named in the URL; it sends the browser back at once.
  const consent = new URL(authorize);
  consent.searchParams.set("login", login);
  const back = await fetch(consent, { redirect: "manual" });
  const callback = await toToolgate(back.headers.get("location")!, env, jar);
  expect(callback.status, await callback.clone().text()).toBe(200);
  return authorize;
}

async function profile(user: string, env: Env) {
  const res = await request("/v1/calls", {
    key: CALL_KEY,
    env,
    headers: { "toolgate-user": user },
    body: { id: `c-${crypto.randomUUID().slice(0, 8)}`, name: "slack_profile", arguments: {} },
  });
  return (await json(res)).calls[0];
}

const seen = async () => ((await (await fetch(`${slack.url}/seen`)).json()) as { seen: string[] }).seen;

describe("a Slack connection", () => {
  it("asks user scopes, keeps each person's user token, and sends it", async () => {
    const env = envOf("conn-slack");
    const authorize = await connectSlack("alice", env);
    expect(authorize.searchParams.get("user_scope")).toBe("users.profile:read");
    expect(authorize.searchParams.has("scope")).toBe(false);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    await connectSlack("bob", env);
    const [alice, bob] = [await profile("alice", env), await profile("bob", env)];
    expect(alice.status, JSON.stringify(alice.error)).toBe("succeeded");
    expect(JSON.stringify(alice.output)).toContain('"real_name":"alice"');
    expect(JSON.stringify(bob.output)).toContain('"real_name":"bob"');
    // The user tokens (xoxp), never a record's part.
    const sent = (await seen()).slice(-2);
    expect(sent.every((token) => token.startsWith("xoxe.xoxp-1-"))).toBe(true);
    expect(JSON.stringify([alice, bob])).not.toContain("xoxe.xoxp");
  });

  it("refreshes an expiring token with Slack's rotation, the new refresh token kept", async () => {
    const env = envOf("conn-slack-refresh");
    await connectSlack("alice", env);
    const before = await storedTokens("conn-slack-refresh", "alice", "slack");
    await rewriteTokens(
      "conn-slack-refresh",
      "alice",
      (tokens) => ({ ...tokens, expiresAt: Date.now() - 1_000 }),
      "slack",
    );
    const call = await profile("alice", env);
    expect(call.status, JSON.stringify(call.error)).toBe("succeeded");
    const after = await storedTokens("conn-slack-refresh", "alice", "slack");
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect((await seen()).at(-1)).toBe(after.accessToken);
  });
});
