import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SECOND_ISOLATE_CONFIG } from "../../fixtures/second-isolate-tenant";
import { eventually } from "../../wait";
import { BASE, json } from "../helpers/requests";
import { demoOidc, idpSecretEnv, sessionHeaders, signIn, toToolgate } from "../helpers/sign-in";

/**
 * Signing out is real in every isolate: the session is revoked in the tenant's Identity object, and
 * another isolate (test/runner/second-isolate.ts, sharing the objects, not the memory) that already
 * accepted the cookie refuses it once its copy of the revocations is renewed (every 5 s), with no
 * request of its own to the provider.
 */

// The second isolate's tenant, with the demo provider to sign in through (the same name: one
// Identity object, so one session key, whichever isolate answers).
const tenant = JSON.parse(SECOND_ISOLATE_CONFIG) as { identity: Record<string, unknown> };
const ENV = {
  TOOLGATE_CONFIG: JSON.stringify({ ...tenant, identity: { ...tenant.identity, oidc: demoOidc() } }),
  ...idpSecretEnv(),
};
const second = (env as unknown as { SECOND_ISOLATE: Fetcher }).SECOND_ISOLATE;

describe("signing out across isolates", () => {
  it("refuses the signed-out cookie in another isolate once its revocations are renewed", async () => {
    const { jar } = await signIn("bob", ENV);
    // The cookie as it was: logout clears it from this browser, not from one that copied it.
    const headers = sessionHeaders(jar);
    const whoamiThere = () => second.fetch(new Request(`${BASE}/v1/whoami`, { headers }));
    // The other isolate accepts the session (and keeps its copy of the revocations from now).
    const before = await whoamiThere();
    expect(before.status).toBe(200);
    expect((await json(before)).user.id).toBe("bob");

    const out = await toToolgate("/auth/logout", ENV, jar, { method: "POST", headers: sessionHeaders(jar) });
    expect(out.status).toBe(204);
    await eventually(async () => (await whoamiThere()).status === 401, "the other isolate refuses the cookie");
    expect((await json(await whoamiThere())).error.code).toBe("invalid_session");
  });
});
