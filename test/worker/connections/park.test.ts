import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env as bindings } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tenantLedger } from "../../../worker/ledger/address";
import { eventually } from "../../wait";
import {
  apiRequests,
  CONNECTIONS_CONFIG,
  connectDemo,
  connectionsTenantEnv,
  type ConnectionsTenantEnv,
  rewriteTokens,
  seenTokens,
  startConnect,
  storedTokens,
  userObject,
} from "../helpers/connections";
import { modernPost, type McpTarget } from "../helpers/mcp";
import { BASE, json, request } from "../helpers/requests";
import { Jar, throughProvider, toToolgate } from "../helpers/sign-in";
import { connectionsUpstream } from "../helpers/connections";

/**
 * A detached call (or an MCP task) needing a connection its user lacks parks: it waits (awaiting_input,
 * its question `connect:demo` a URL-mode elicitation of the connect page) and runs on, with no client
 * action, once that user connects: the real connect flow's callback resumes it. The upstream is
 * asked once, with that user's token.
 */

const CONNECT_URL = `${BASE}/connections/demo/connect`;
const DETACHED = { policies: { my_items: { execution: "detached" } } };
const parkingTenant = (name: string, patch: Record<string, unknown> = {}) =>
  connectionsTenantEnv(name, { ...DETACHED, ...patch });

/** my_items by the chat key acting for `user`: its first answer (a detached call: running). */
async function callMyItems(env: ConnectionsTenantEnv, user: string) {
  const res = await request("/v1/calls", {
    env,
    headers: { "toolgate-user": user },
    body: { name: "my_items", arguments: {} },
  });
  const call = (await json(res)).calls[0];
  expect(call.status, JSON.stringify(call)).toBe("running");
  return call.callId as string;
}

async function recordOf(env: ConnectionsTenantEnv, user: string, id: string) {
  const body = await json(await request(`/v1/calls/${id}`, { env, headers: { "toolgate-user": user } }));
  expect(body.record, JSON.stringify(body)).toBeDefined();
  return body.record;
}

async function untilParked(env: ConnectionsTenantEnv, user: string, id: string) {
  let record: any;
  await eventually(async () => (record = await recordOf(env, user, id)).status === "awaiting_input", `${id} parks`);
  return record;
}

async function outcome(env: ConnectionsTenantEnv, user: string, id: string): Promise<any> {
  let record: any;
  await eventually(
    async () => {
      record = (await json(await request(`/v1/calls/${id}?wait=5`, { env, headers: { "toolgate-user": user } })))
        .record;
      return record.status !== "running" && record.status !== "awaiting_input";
    },
    `${id} ended`,
    20_000,
  );
  return record;
}

/** The rows of calls parked in the user's Connections object. */
async function parkedRows(tenant: string, user: string) {
  return runInDurableObject(await userObject(tenant, user), (_object, state) =>
    state.storage.sql
      .exec<{ call_id: string }>("SELECT call_id FROM parked")
      .toArray()
      .map((row) => row.call_id),
  );
}

const parkedQuestion = {
  "connect:demo": {
    method: "elicitation/create",
    params: {
      mode: "url",
      url: CONNECT_URL,
      elicitationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      message: "This tool acts as you through Demo (not connected to demo). Connect your account to continue.",
    },
  },
};

describe("a call parked until its user connects", () => {
  it("a detached HTTP call parks, naming the connect URL, and finishes with the user's data once they connect", async () => {
    const env = parkingTenant("conn-park");
    const before = await apiRequests();
    const id = await callMyItems(env, "alice");
    const parked = await untilParked(env, "alice", id);
    expect(parked.error).toMatchObject({ code: "input_required", inputRequests: parkedQuestion });
    expect(await parkedRows("conn-park", "alice")).toEqual([id]);
    expect(await apiRequests()).toBe(before);

    // The person connects in their browser; nothing else is done: the call runs on.
    await connectDemo("alice", env);
    const done = await outcome(env, "alice", id);
    expect(done.status, JSON.stringify(done)).toBe("succeeded");
    expect(done.output.structured).toMatchObject({ owner: "alice" });
    expect(await parkedRows("conn-park", "alice")).toEqual([]);
    // The upstream was asked once, with alice's own token.
    expect(await apiRequests()).toBe(before + 1);
    const { accessToken } = await storedTokens("conn-park", "alice");
    expect((await seenTokens()).filter((token) => token === accessToken)).toHaveLength(1);
  });

  it("another user connecting, or the same user on another tenant, does not resume it", async () => {
    const env = parkingTenant("conn-park-own");
    const other = parkingTenant("conn-park-other");
    const id = await callMyItems(env, "alice");
    await untilParked(env, "alice", id);
    await connectDemo("bob", env);
    await connectDemo("alice", other);
    // Both callbacks have answered (each resumes what it resumes before its page): alice's call still waits.
    expect((await recordOf(env, "alice", id)).status).toBe("awaiting_input");
    expect(await parkedRows("conn-park-own", "alice")).toEqual([id]);
    await connectDemo("alice", env);
    expect((await outcome(env, "alice", id)).output.structured).toMatchObject({ owner: "alice" });
  });

  it("cancelled while parked: ends cancelled, its row goes, and connecting later runs nothing", async () => {
    const env = parkingTenant("conn-park-cancel");
    const before = await apiRequests();
    const id = await callMyItems(env, "alice");
    await untilParked(env, "alice", id);
    const cancelled = await request(`/v1/calls/${id}/cancel`, { env, headers: { "toolgate-user": "alice" }, body: {} });
    expect(cancelled.status).toBe(200);
    expect((await recordOf(env, "alice", id)).status).toBe("cancelled");
    expect(await parkedRows("conn-park-cancel", "alice")).toEqual([]);
    await connectDemo("alice", env);
    expect((await recordOf(env, "alice", id)).status).toBe("cancelled");
    expect(await apiRequests()).toBe(before);
  });

  it("past its wait's deadline it ends timed out, naming the connection it waited for", async () => {
    const env = parkingTenant("conn-park-expiry");
    const id = await callMyItems(env, "alice");
    await untilParked(env, "alice", id);
    const shard = tenantLedger(bindings, "conn-park-expiry").for(id) as unknown as DurableObjectStub;
    // The hour passes (the row's deadline moved into the past); the shard's alarm ends the wait.
    await runInDurableObject(shard, (_object, state) => {
      state.storage.sql.exec("UPDATE calls SET deadline = ? WHERE call_id = ?", Date.now() - 1, id);
    });
    await runDurableObjectAlarm(shard);
    const ended = await recordOf(env, "alice", id);
    expect(ended).toMatchObject({ status: "timed_out", error: { code: "timeout" } });
    expect(ended.error.message).toBe(
      'Nobody answered what "my_items" asked (connect:demo) within 60 min; the call ended without running on.',
    );
  });

  it("two callbacks at once (two connects of the same user) resume it once", async () => {
    const env = parkingTenant("conn-park-twice");
    const before = await apiRequests();
    const id = await callMyItems(env, "alice");
    await untilParked(env, "alice", id);
    const connects = await Promise.all([startConnect("alice", env), startConnect("alice", env)]);
    const backs = await Promise.all(
      connects.map(({ authorize }) => throughProvider(authorize, "alice", new Jar(), connectionsUpstream.idp.url)),
    );
    const pages = await Promise.all(backs.map((back, at) => toToolgate(back, env, connects[at]!.jar)));
    expect(pages.map((page) => page.status)).toEqual([200, 200]);
    expect((await outcome(env, "alice", id)).status).toBe("succeeded");
    expect(await apiRequests()).toBe(before + 1);
  });

  it("connected with scopes short of the tool's: parks, and runs on after the user consents again", async () => {
    const tool = { ...CONNECTIONS_CONFIG.http[0], connection: { name: "demo", scopes: ["openid"] } };
    const env = parkingTenant("conn-park-scopes", { http: [tool] });
    await connectDemo("alice", env);
    // The grant lost a scope (the provider's consent was narrowed).
    await rewriteTokens("conn-park-scopes", "alice", (tokens) => ({ ...tokens, scopes: [] }));
    await runInDurableObject(await userObject("conn-park-scopes", "alice"), (_object, state) => {
      state.storage.sql.exec("UPDATE tokens SET scopes = '[]'");
    });
    const id = await callMyItems(env, "alice");
    const parked = await untilParked(env, "alice", id);
    expect(parked.error.inputRequests["connect:demo"].params.message).toContain("lacks the scopes openid");
    await connectDemo("alice", env);
    expect((await outcome(env, "alice", id)).output.structured).toMatchObject({ owner: "alice" });
  });
});

describe("the user's object, between a parking run and the callback", () => {
  it("tells a run that parked as the user connected to run on, in either order, and bounds the parked", async () => {
    const tenant = "conn-park-race";
    const env = parkingTenant(tenant);
    const object = (await userObject(tenant, "alice")) as unknown as {
      run(op: string, ...args: unknown[]): Promise<unknown>;
    };
    const until = Date.now() + 600_000;
    // Parked before any connect: the run waits.
    expect(await object.run("parkCall", "race-1", "demo", [], until)).toBe(true);
    expect(await object.run("parkedReady", "race-1")).toBe(false);
    // The callback takes the row (its answer comes too early if the call does not wait yet) ...
    await connectDemo("alice", env);
    expect(await parkedRows(tenant, "alice")).toEqual([]);
    // ... so the run that then ends waiting is told to run on.
    expect(await object.run("parkedReady", "race-1")).toBe(true);
    // Parked after the callback stored the tokens: told to run on at once, its row gone.
    expect(await object.run("parkCall", "race-2", "demo", [], until)).toBe(true);
    expect(await object.run("parkedReady", "race-2")).toBe(true);
    expect(await parkedRows(tenant, "alice")).toEqual([]);
    // At most 64 parked calls per user.
    for (let n = 0; n < 64; n++) expect(await object.run("parkCall", `many-${n}`, "other", [], until)).toBe(true);
    expect(await object.run("parkCall", "one-too-many", "other", [], until)).toBe(false);
  });
});

const TASKS = "io.modelcontextprotocol/tasks";
const taskMeta = {
  "io.modelcontextprotocol/clientCapabilities": { elicitation: { url: {} }, extensions: { [TASKS]: {} } },
};

async function rpc(target: McpTarget, method: string, params: Record<string, unknown>) {
  const name = typeof params.taskId === "string" ? params.taskId : (params.name as string);
  const res = await modernPost(method, params, { target, meta: taskMeta, headers: { "mcp-name": name } });
  return ((await res.json()) as any).result;
}

describe("an MCP task parked until its user connects (2026-07-28)", () => {
  it("is input_required with the URL-mode elicitation, and completes once the user connects", async () => {
    const env = parkingTenant("conn-park-task");
    const target: McpTarget = { vars: env, headers: { "toolgate-user": "alice" } };
    const created = await rpc(target, "tools/call", { name: "my_items", arguments: {} });
    expect(created).toMatchObject({ resultType: "task", taskId: expect.any(String) });
    const taskId = created.taskId as string;
    let task: any;
    const untilStatus = (status: string) =>
      eventually(async () => (task = await rpc(target, "tasks/get", { taskId })).status === status, `task ${status}`);
    await untilStatus("input_required");
    expect(task.inputRequests).toEqual(parkedQuestion);
    await connectDemo("alice", env);
    await untilStatus("completed");
    expect(task.result.isError, JSON.stringify(task.result)).toBeFalsy();
    expect(task.result.structuredContent).toMatchObject({ owner: "alice" });
  });

  it("cancelled by tasks/cancel while parked: the task is cancelled and its row goes", async () => {
    const env = parkingTenant("conn-park-task-cancel");
    const target: McpTarget = { vars: env, headers: { "toolgate-user": "bob" } };
    const { taskId } = await rpc(target, "tools/call", { name: "my_items", arguments: {} });
    await eventually(async () => (await rpc(target, "tasks/get", { taskId })).status === "input_required", "parked");
    expect(await parkedRows("conn-park-task-cancel", "bob")).toEqual([taskId]);
    expect(await rpc(target, "tasks/cancel", { taskId })).toMatchObject({ resultType: "complete" });
    expect((await rpc(target, "tasks/get", { taskId })).status).toBe("cancelled");
    expect(await parkedRows("conn-park-task-cancel", "bob")).toEqual([]);
  });
});
