import { env as workerEnv } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connectDemo, connectionsTenantEnv, type CONNECTIONS_CONFIG } from "../helpers/connections";
import { CALL_KEY, json, request } from "../helpers/requests";

/**
 * The budget of a call acting as the user: at most one round trip to the user's Connections object over
 * the same call with a static credential, and none while this isolate keeps the token. Counted at the
 * namespace: every RPC a call makes on a Connections stub.
 */

/** env.CONNECTIONS, counting the RPCs made on its stubs. */
function countingConnections() {
  const counted = { rpcs: 0 };
  const ns = workerEnv.CONNECTIONS;
  const namespace = {
    idFromName: (name: string) => ns.idFromName(name),
    get(id: DurableObjectId) {
      const stub = ns.get(id);
      return new Proxy(stub, {
        get(target, property) {
          const value = Reflect.get(target, property);
          if (typeof value !== "function") return value;
          return (...args: unknown[]) => {
            counted.rpcs++;
            return Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
          };
        },
      });
    },
  };
  return { counted, namespace };
}

async function call(tool: string, env: Record<string, unknown>, user?: string) {
  const res = await request("/v1/calls", {
    key: CALL_KEY,
    env,
    headers: user ? { "toolgate-user": user } : {},
    body: { id: `c-${crypto.randomUUID().slice(0, 8)}`, name: tool, arguments: {} },
  });
  const body = await json(res);
  expect(body.calls, JSON.stringify(body)).toBeDefined();
  return body.calls[0];
}

describe("a call acting as the user: its round trips", () => {
  it("makes one Connections round trip on the isolate's first call, none while it keeps the token", async () => {
    const base = connectionsTenantEnv("conn-trips");
    await connectDemo("alice", base);
    const { counted, namespace } = countingConnections();
    // The same API with a static credential: a tool of the same tenant with a bearer from a Worker secret.
    const config = JSON.parse(base.TOOLGATE_CONFIG) as typeof CONNECTIONS_CONFIG;
    const staticTool = { ...config.http[0]!, name: "static_items", auth: { type: "bearer", secret: "API_TOKEN" } };
    delete (staticTool as { connection?: unknown }).connection;
    const env = {
      ...base,
      TOOLGATE_CONFIG: JSON.stringify({
        ...config,
        secrets: { API_TOKEN: "TRIPS_API_TOKEN" },
        http: [...config.http, staticTool],
      }),
      TRIPS_API_TOKEN: "static-token",
      CONNECTIONS: namespace,
    };

    await call("static_items", env, "alice");
    expect(counted.rpcs).toBe(0);
    const first = await call("my_items", env, "alice");
    expect(first.status, JSON.stringify(first.error)).toBe("succeeded");
    expect(counted.rpcs).toBe(1);
    for (let i = 0; i < 5; i++) {
      const next = await call("my_items", env, "alice");
      expect(next.status).toBe("succeeded");
    }
    expect(counted.rpcs).toBe(1);
  });
});
