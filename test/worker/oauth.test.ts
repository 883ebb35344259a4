import { describe, expect, it } from "vitest";
import { BASE, json, request } from "./helpers";
import { signIn } from "./oauth-helpers";

describe("OAuth sign-in", () => {
  it("issues a token an admin approved, which calls tools", async () => {
    const { tokens, clientId } = await signIn();
    expect(tokens.scope).toBe("call");
    const res = await request("/v1/calls/openai", { key: tokens.access_token, body: [{ id: "o1", type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }] });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.calls[0].status).toBe("succeeded");
    const entry = await json(await request("/v1/calls/o1", { key: tokens.access_token }));
    expect(entry.key).toMatch(new RegExp(`^oauth:${clientId}#`));
    void BASE;
  });
});
