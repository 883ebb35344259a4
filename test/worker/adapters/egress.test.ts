import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../worker/errors";
import { createTenant } from "../../../worker/tenant/tenant";
import { adapterConfig, callTools, uid, upstreams } from "../helpers/adapters";
import { ADMIN_KEY, json, request } from "../helpers/requests";

/** Arrival times the meter (another port of 127.0.0.1) saw for one bucket. */
async function arrivals(bucket: string): Promise<number[]> {
  return (await (await fetch(`${upstreams.meter}/log/${bucket}`)).json()) as number[];
}

const leave = {
  name: "leave",
  description: "Redirects elsewhere",
  url: `${upstreams.httpApi}/redirect`,
  input: { type: "object", properties: { to: { type: "string" } } },
};

describe("egress matches origins, through the Worker and real sockets", () => {
  it("refuses an adapter's redirect to another port of an allowed loopback host before any request goes there", async () => {
    const bucket = `port-${uid()}`;
    // The adapter's own origin is allowed; "127.0.0.1" (a host entry) means its default ports only.
    const env = {
      TOOLGATE_CONFIG: adapterConfig(`eg-${uid()}`, { http: [leave], egress: { allowHttpHosts: ["127.0.0.1"] } }),
    };
    const { records } = await callTools(env, ["leave", { to: `${upstreams.meter}/m/${bucket}` }]);
    expect(records[0].error).toEqual({
      code: "denied",
      message:
        `Egress refused: origin ${upstreams.meter} is not in the allow-list ` +
        `(only other ports or schemes of 127.0.0.1 are; a host entry means its default port)`,
    });
    expect(await arrivals(bucket)).toEqual([]);
  });

  it("follows the redirect once that origin is listed, and shows the adapters' origins", async () => {
    const bucket = `listed-${uid()}`;
    const env = {
      TOOLGATE_CONFIG: adapterConfig(`eg-${uid()}`, {
        http: [leave],
        egress: { allowHttpHosts: ["127.0.0.1", upstreams.meter] },
      }),
    };
    const { records } = await callTools(env, ["leave", { to: `${upstreams.meter}/m/${bucket}` }]);
    expect(records[0]).toMatchObject({ status: "succeeded", output: { structured: { bucket, n: 1 } } });
    expect(await arrivals(bucket)).toHaveLength(1);
    const shown = await json(await request("/v1/adapters", { env, key: ADMIN_KEY }));
    expect(shown.egress).toEqual({ allowHosts: [upstreams.httpApi], allowHttpHosts: ["127.0.0.1", upstreams.meter] });
  });

  it("answers readable config errors for entries that are neither an origin nor a host", () => {
    const base = { name: "acme", tools: ["add"], keys: [{ name: "k", hash: "a".repeat(64), scopes: ["admin"] }] };
    const error = (egress: Record<string, unknown>): string => {
      try {
        createTenant({ ...base, egress });
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error("expected a ConfigError");
    };
    expect(error({ allowHosts: ["api.example.com:8443"] })).toBe(
      'TOOLGATE_CONFIG is invalid: egress.allowHosts[0]: "api.example.com:8443" names a port: ' +
        'write the origin with its scheme, e.g. "https://api.example.com:8443" (a host entry means https on port 443)',
    );
    expect(error({ allowHosts: ["http://api.example.com:8080"] })).toContain(
      "egress.allowHosts[0]: plain http is for local development: " +
        'list "http://api.example.com:8080" in egress.allowHttpHosts (loopback only)',
    );
    expect(error({ allowHosts: ["https://api.example.com/v1"] })).toMatch(
      /egress\.allowHosts\[0\]: "https:\/\/api\.example\.com\/v1" is not an origin/,
    );
    expect(error({ allowHttpHosts: ["http://10.0.0.1:8080"] })).toMatch(
      /egress\.allowHttpHosts\[0\]: must be a loopback host or origin/,
    );
    expect(() =>
      createTenant({
        ...base,
        egress: {
          allowHosts: ["https://api.example.com:8443", "*.example.org"],
          allowHttpHosts: ["http://[::1]:9001", "localhost"],
        },
      }),
    ).not.toThrow();
  });
});
