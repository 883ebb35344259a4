import { runInDurableObject } from "cloudflare:test";
import { env as workerEnv } from "cloudflare:workers";
import { expect, inject } from "vitest";
import type { TokenSet } from "../../../worker/connections/lazy/entry";
import { open, seal } from "../../../worker/connections/lazy/seal";
import { userKey } from "../../../worker/identity/lazy/user";
import { WORKERD_TEST_SECRETS } from "../../fixtures/workerd-secrets";
import "../../servers/upstreams-context";
import { CALL_KEY_HASH } from "./requests";
import { demoOidc, idpSecretEnv, Jar, signIn, throughProvider, toToolgate } from "./sign-in";

/**
 * A tenant whose tool my_items acts as the user through connection "demo": a second oidc-provider is
 * the upstream provider, and a loopback API answers the items of whoever's token it gets. The chat
 * key acts for the user its Toolgate-User header names.
 */

export const connectionsUpstream = inject("connectionsUpstream");
export const CONNECTIONS_SECRET = WORKERD_TEST_SECRETS.TOOLGATE_CONNECTIONS_SECRET;

export const CONNECTIONS_CONFIG = {
  name: "conn",
  tools: ["add"],
  keys: [{ name: "chat", hash: CALL_KEY_HASH, scopes: ["call"], actAs: "header" }],
  identity: { oidc: demoOidc() },
  connections: {
    demo: {
      title: "Demo",
      issuer: connectionsUpstream.idp.url,
      clientId: connectionsUpstream.idp.clientId,
      clientSecret: "UPSTREAM_CLIENT_SECRET",
      scopes: ["openid"],
    },
  },
  http: [
    {
      name: "my_items",
      description: "The caller's items",
      url: `${connectionsUpstream.api}/items`,
      connection: { name: "demo" },
    },
  ],
  egress: { allowHttpHosts: ["127.0.0.1"] },
};

/**
 * The env of tenant `name` (a tenant of its own: its users' objects and this isolate's kept tokens are its
 * own), its configuration patched with `patch`.
 */
export const connectionsTenantEnv = (name: string, patch: Record<string, unknown> = {}) => ({
  TOOLGATE_CONFIG: JSON.stringify({ ...CONNECTIONS_CONFIG, ...patch, name }),
  ...idpSecretEnv(),
  UPSTREAM_CLIENT_SECRET: connectionsUpstream.idp.clientSecret,
  TOOLGATE_CONNECTIONS_SECRET: CONNECTIONS_SECRET,
});
export type ConnectionsTenantEnv = ReturnType<typeof connectionsTenantEnv>;

/** The person signs in to the console and starts a connect: the provider's authorize URL, and their jar. */
export async function startConnect(login: string, env: ConnectionsTenantEnv, path = "/connections/demo/connect") {
  const { jar } = await signIn(login, env);
  const started = await toToolgate(path, env, jar);
  expect(started.status, await started.clone().text()).toBe(302);
  return { jar, authorize: started.headers.get("location")! };
}

/** The person connects Demo: signed in, through the upstream provider's forms, back to the callback. */
export async function connectDemo(login: string, env: ConnectionsTenantEnv, path?: string) {
  const { jar, authorize } = await startConnect(login, env, path);
  const back = await throughProvider(authorize, login, new Jar(), connectionsUpstream.idp.url);
  const cookie = jar.cookies.get("tg_connect")!;
  const callback = await toToolgate(back, env, jar);
  expect(callback.status, await callback.clone().text()).toBe(200);
  return { jar, back, cookie };
}

/** How many requests the loopback API has had (a refused call must make none). */
export const apiRequests = async () =>
  ((await (await fetch(`${connectionsUpstream.api}/requests`)).json()) as { requests: number }).requests;

/** Every bearer token the loopback API was sent, oldest first. */
export const seenTokens = async () =>
  ((await (await fetch(`${connectionsUpstream.api}/seen`)).json()) as { seen: string[] }).seen.map((line) =>
    line.replace(/^Bearer /, ""),
  );

/** The user's Connections object in tenant `tenant`. */
export async function userObject(tenant: string, user: string) {
  const ns = workerEnv.CONNECTIONS;
  return ns.get(ns.idFromName(`${tenant}\n${await userKey(tenant, user)}`));
}

/** The sealed row of a connection's tokens in a user's object. */
export async function sealedRow(object: DurableObjectStub, connection = "demo"): Promise<string> {
  return runInDurableObject(
    object,
    (_object, state) =>
      state.storage.sql.exec<{ sealed: string }>("SELECT sealed FROM tokens WHERE connection = ?", connection).one()
        .sealed,
  );
}

/** The user's tokens as stored, opened with the test tenants' secret. */
export async function storedTokens(tenant: string, user: string, connection = "demo"): Promise<TokenSet> {
  const info = `${tenant}\n${await userKey(tenant, user)}\n${connection}`;
  const opened = await open<TokenSet>(
    [CONNECTIONS_SECRET],
    info,
    await sealedRow(await userObject(tenant, user), connection),
  );
  return opened!.value;
}

/** Rewrites the user's stored tokens, sealed as toolgate seals them (what time or the provider would change). */
export async function rewriteTokens(
  tenant: string,
  user: string,
  change: (tokens: TokenSet) => TokenSet,
  connection = "demo",
): Promise<void> {
  const info = `${tenant}\n${await userKey(tenant, user)}\n${connection}`;
  const sealed = await seal(CONNECTIONS_SECRET, info, change(await storedTokens(tenant, user, connection)));
  await runInDurableObject(await userObject(tenant, user), (_object, state) => {
    state.storage.sql.exec("UPDATE tokens SET sealed = ? WHERE connection = ?", sealed, connection);
  });
}
