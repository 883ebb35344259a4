import { describe, expect, it, vi } from "vitest";
import { modernPost } from "../helpers/mcp";
import { openSse } from "../helpers/sse";
import { ADMIN_KEY, CALL_KEY, CALL_KEY_HASH, json, request } from "../helpers/requests";

/**
 * Records of calls made for users, through the real routes: a key acting for a user (Toolgate-User)
 * reads only what it did for that user; admins read every call and filter by user. Entries, the
 * export, events and the log line carry the user.
 */

const ADMIN_KEY_HASH = "df76ff796f70d2c9cb055ea6280553caa27eda26b70e01082c160de75a05a4a9";
/** SHA-256 of "chat-header-key". */
const CHAT_KEY = "chat-header-key";
const CONFIG = JSON.stringify({
  name: "records-users",
  tools: ["add", "echo"],
  keys: [
    { name: "admin", hash: ADMIN_KEY_HASH, scopes: ["admin"] },
    {
      name: "chat",
      hash: "4df506aaf65544de90410bb89044c2c43cecba63a4f536ea3e75f4d7f5891518",
      scopes: ["call"],
      actAs: "header",
    },
    { name: "other", hash: CALL_KEY_HASH, scopes: ["call"], actAs: "header" },
  ],
});
const ENV = { TOOLGATE_CONFIG: CONFIG };
const uid = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;
const as = (key: string, user?: string) => {
  const headers: Record<string, string> = user ? { "toolgate-user": user } : {};
  return { key, env: ENV, headers };
};

/** One `echo` call with `key` for `user`; answers its id once it is recorded. */
async function call(key: string, user: string, id = uid("c")): Promise<string> {
  const body = [{ id, type: "function", function: { name: "echo", arguments: JSON.stringify({ text: id }) } }];
  const res = await request("/v1/calls/openai", { ...as(key, user), body });
  expect(res.status).toBe(200);
  return id;
}

const ndjson = async (res: Response) =>
  new TextDecoder()
    .decode(await res.arrayBuffer())
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as { record?: { callId: string }; user?: unknown });

describe("records of a key acting for users", () => {
  it("shows a user's call to that user only; another user of the same key gets 404 everywhere", async () => {
    const tag = uid("t");
    const bobs = await call(CHAT_KEY, "bob", `${tag}-bob`);
    const alices = await call(CHAT_KEY, "alice", `${tag}-alice`);

    const asBob = await request(`/v1/calls/${bobs}`, as(CHAT_KEY, "bob"));
    expect(asBob.status).toBe(200);
    expect(await json(asBob)).toMatchObject({ key: "chat", user: { id: "bob", source: "header" } });
    // The key alone (acting for nobody) reads every call it made.
    expect((await request(`/v1/calls/${bobs}`, as(CHAT_KEY))).status).toBe(200);

    const refusals = [
      await request(`/v1/calls/${bobs}`, as(CHAT_KEY, "alice")),
      await request(`/v1/calls/${bobs}/result`, as(CHAT_KEY, "alice")),
      await request(`/v1/calls/${bobs}/cancel`, { ...as(CHAT_KEY, "alice"), body: {} }),
      await request(`/v1/calls/${bobs}/input`, { ...as(CHAT_KEY, "alice"), body: { inputResponses: { a: {} } } }),
      // Another key acting for the same user did not make it.
      await request(`/v1/calls/${bobs}`, as(CALL_KEY, "bob")),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(404);
      expect((await json(res)).error.code).toBe("not_found");
    }
    // Bob's own cancel and input reach the call (which already ended): 409, not 404.
    expect((await request(`/v1/calls/${bobs}/cancel`, { ...as(CHAT_KEY, "bob"), body: {} })).status).toBe(409);
    const input = { ...as(CHAT_KEY, "bob"), body: { inputResponses: { a: {} } } };
    expect((await request(`/v1/calls/${bobs}/input`, input)).status).toBe(409);
    // Nothing changed: the call is still bob's, succeeded.
    const after = await json(await request(`/v1/calls/${bobs}`, { key: ADMIN_KEY, env: ENV }));
    expect(after).toMatchObject({ record: { status: "succeeded" }, cancelRequested: false });

    const list = async (key: string, user?: string, query = "") =>
      (await json(await request(`/v1/calls?callId=${tag}${query}`, as(key, user)))).calls.map(
        (entry: { record: { callId: string } }) => entry.record.callId,
      );
    expect(await list(CHAT_KEY, "alice")).toEqual([alices]);
    expect(await list(CHAT_KEY, "bob")).toEqual([bobs]);
    expect((await list(CHAT_KEY)).sort()).toEqual([alices, bobs].sort());
    expect(await list(CALL_KEY, "bob")).toEqual([]);
    // Admins see all, and filter by user.
    expect((await list(ADMIN_KEY)).sort()).toEqual([alices, bobs].sort());
    expect(await list(ADMIN_KEY, undefined, "&user=bob")).toEqual([bobs]);
    expect(await list(ADMIN_KEY, undefined, "&user=carol")).toEqual([]);

    const exported = await ndjson(await request(`/v1/calls?as=ndjson&callId=${tag}`, as(CHAT_KEY, "alice")));
    expect(exported).toEqual([expect.objectContaining({ record: expect.objectContaining({ callId: alices }) })]);
    expect(exported[0]!.user).toEqual({ id: "alice", source: "header" });
  });

  it("refuses a call id another user of the key already used: conflict, never the other's outcome", async () => {
    const id = await call(CHAT_KEY, "bob");
    const body = [{ id, type: "function", function: { name: "echo", arguments: JSON.stringify({ text: id }) } }];
    const res = await request("/v1/calls/openai", { ...as(CHAT_KEY, "alice"), body });
    expect(res.status).toBe(409);
    const { calls } = await json(res);
    expect(calls).toEqual([
      expect.objectContaining({ status: "rejected", error: expect.objectContaining({ code: "conflict" }) }),
    ]);
    expect(calls[0]).not.toHaveProperty("output");
    const entry = await json(await request(`/v1/calls/${id}`, { key: ADMIN_KEY, env: ENV }));
    expect(entry.user).toEqual({ id: "bob", source: "header" });
  });

  it("streams a user's events to that user's token only", async () => {
    const tag = uid("s");
    const token = await json(await request("/v1/events/token", { ...as(CHAT_KEY, "alice"), body: {} }));
    const res = await request(`${token.url}`, { key: null, env: ENV });
    const sse = await openSse(res);
    await sse.ready();
    await call(CHAT_KEY, "bob", `${tag}-bob`);
    const alices = await call(CHAT_KEY, "alice", `${tag}-alice`);
    const frames = await sse.until((fs) => fs.some((f) => f.data?.callId === alices && f.event === "call.finished"));
    await sse.close();
    const calls = frames.filter((f) => f.data?.callId).map((f) => f.data.callId as string);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((id) => id === alices)).toBe(true);
    const finished = frames.find((f) => f.event === "call.finished")!;
    expect(finished.data.user).toEqual({ id: "alice" });
  });

  it("logs the user's id with the call, never more of them", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      const id = await call(CHAT_KEY, "bob");
      const lines = log.mock.calls
        .map((args) => args.join(" "))
        .filter((line) => line.includes('"msg":"call"') && line.includes(id))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toEqual([expect.objectContaining({ key: "chat", user: "bob", callId: id })]);
    } finally {
      log.mockRestore();
    }
  });

  it("logs the key and the user's id with a call over MCP too", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      const text = uid("mcp");
      const target = { key: CHAT_KEY, vars: ENV, headers: { "toolgate-user": "carol" } };
      const res = await modernPost("tools/call", { name: "echo", arguments: { text } }, { target });
      expect(res.status).toBe(200);
      await res.text();
      const lines = log.mock.calls
        .map((args) => args.join(" "))
        .filter((line) => line.includes('"msg":"call"') && line.includes('"tool":"echo"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toEqual([expect.objectContaining({ key: "chat", user: "carol", status: "succeeded" })]);
    } finally {
      log.mockRestore();
    }
  });
});
