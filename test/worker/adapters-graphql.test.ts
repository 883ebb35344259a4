import { describe, expect, it } from "vitest";
import { ConfigError } from "../../worker/config";
import { createTenant } from "../../worker/tenant";
import { adapterConfig, callTools, uid, upstreams } from "./adapters-helpers";
import { ADMIN_KEY, json, request } from "./helpers";

const api = upstreams.httpApi;
const SECRET = "gql-secret-Value/42";
const thing = {
  name: "gql_thing",
  description: "One thing by id",
  url: `${api}/echo/graphql`,
  query: "query Thing($id: ID!) { thing(id: $id) { name } }",
  input: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
  auth: { type: "bearer", secret: "GQL" },
  rateLimit: { requests: 100, intervalMs: 1000 },
};

describe("a GraphQL adapter kind, declared in its own module and one line of ADAPTER_KINDS", () => {
  it("is a config section, a tool run end to end with its credential, and a line of GET /v1/adapters", async () => {
    const env = { TOOLGATE_CONFIG: adapterConfig(`gql-${uid()}`, { graphql: [thing], secrets: { GQL: "GQL_SECRET" } }), GQL_SECRET: SECRET };
    const { records } = await callTools(env, ["gql_thing", { id: "7" }]);
    expect(records[0]).toMatchObject({ status: "succeeded", source: "graphql" });
    const echoed = records[0].output.structured;
    expect(echoed.method).toBe("POST");
    expect(JSON.parse(echoed.body)).toEqual({ query: thing.query, variables: { id: "7" } });
    expect(echoed.headers.authorization).toBe("[redacted]"); // sent, then masked in what came back
    expect(JSON.stringify(records)).not.toContain(SECRET);
    const shown = await json(await request("/v1/adapters", { env, key: ADMIN_KEY }));
    expect(shown.graphql).toEqual([{ name: "gql_thing", upstream: api, rateLimit: thing.rateLimit }]);
    expect(shown.egress.allowHosts).toEqual([api]);
  });

  it("goes through the same checks as every kind", () => {
    const base = { name: "acme", tools: ["add"], keys: [{ name: "k", hash: "a".repeat(64), scopes: ["admin"] }] };
    const error = (patch: Record<string, unknown>): string => {
      try {
        createTenant({ ...base, ...patch });
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error("expected a ConfigError");
    };
    const remote = { ...thing, url: "https://gql.example.com/graphql" };
    expect(error({ graphql: [{ ...remote, url: "ftp://x" }] })).toBe('TOOLGATE_CONFIG is invalid: graphql[0]: GraphQL "gql_thing": invalid url: must be an absolute http(s) URL');
    expect(error({ graphql: [remote] })).toMatch(/graphql\[0\]\.auth: the secret "GQL" is not declared in "secrets"/);
    expect(error({ graphql: [{ ...remote, url: "https://10.1.2.3/graphql" }], secrets: { GQL: "G" } })).toMatch(/graphql\[0\]\.url: 10\.1\.2\.3 is a private address/);
    const http = { name: "h", description: "d", url: "https://gql.example.com/rest", rateLimit: { requests: 5, intervalMs: 1000 } };
    expect(error({ http: [http], graphql: [remote], secrets: { GQL: "G" } })).toMatch(
      /graphql\[0\]\.rateLimit: differs from http\[0\]\.rateLimit for the same upstream https:\/\/gql\.example\.com/,
    );
    expect(error({ graphql: "nope" })).toMatch(/graphql: Invalid type/);
  });
});
