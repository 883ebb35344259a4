import { afterEach, describe, expect, it, vi } from "vitest";
import { adapterConfig, callTools, uid, upstreams } from "../helpers/adapters";
import { ADMIN_KEY, json, request } from "../helpers/requests";

const api = upstreams.httpApi;
const SECRET = "up-secret-Value/42+xyz";
const bytes = new TextEncoder().encode(SECRET);
const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const pct = [...bytes]
  .map((b) => `%${b.toString(16).padStart(2, "0")}`)
  .join("")
  .toUpperCase();

/** An HTTP tool whose upstream answers with the credential at `at` characters into its body, as `form`. */
const leak = (name: string, query: Record<string, string>, extra: Record<string, unknown> = {}) => ({
  name,
  description: "Echoes the credential somewhere in its answer",
  url: `${api}/leak`,
  query,
  auth: { type: "header", name: "x-upstream-cred", secret: "UP_KEY" },
  retry: { attempts: 1 },
  ...extra,
});

afterEach(() => vi.restoreAllMocks());

describe("secrets across a cut: masked first, then cut", () => {
  it("never leaks the start of a secret that an upstream error places across the 500-character excerpt, in any form", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const http = [
      leak("across_raw", { at: "490" }),
      leak("across_hex", { at: "480", form: "hex" }),
      leak("across_pct", { at: "470", form: "PCT" }),
      // 1,990 spaces collapse to one: the end of the 2,000-byte read (a cut of its own) lands in the excerpt.
      leak("across_read", { at: "1990", pad: " " }),
    ];
    const env = {
      TOOLGATE_CONFIG: adapterConfig(`leak-${uid()}`, { http, secrets: { UP_KEY: "LEAK_UP_KEY" } }),
      LEAK_UP_KEY: SECRET,
    };
    const { ids, messages, records } = await callTools(
      env,
      ["across_raw", {}],
      ["across_hex", {}],
      ["across_pct", {}],
      ["across_read", {}],
    );
    expect(records.map((r) => r.error?.code)).toEqual([
      "upstream_error",
      "upstream_error",
      "upstream_error",
      "upstream_error",
    ]);
    // The excerpt is there, cut after masking: the padding, then the mask.
    expect(records[0].error.message).toMatch(/HTTP 500: \.{490}\[redacted\]$/);
    expect(records[1].error.message).toMatch(/\.{480}\[redacted\] and more $/);
    expect(records[2].error.message).toMatch(/\.{470}\[redacted\] and more text after$/);
    expect(records[3].error.message).toMatch(/answered HTTP 500$/);

    const stored = await Promise.all(
      ids.map(async (id) => JSON.stringify(await json(await request(`/v1/calls/${id}`, { env })))),
    );
    const logged = JSON.stringify(log.mock.calls);
    expect(logged).toContain("across_raw");
    for (const text of [JSON.stringify(messages), JSON.stringify(records), ...stored, logged]) {
      for (const start of [SECRET.slice(0, 6), hex.slice(0, 8), hex.slice(0, 8).toUpperCase(), pct.slice(0, 9)])
        expect(text).not.toContain(start);
    }
  });

  it("drops the start of a secret where maxResponseBytes cuts a successful body", async () => {
    const http = [leak("cut_body", { at: "990", status: "200" }, { maxResponseBytes: 1000 })];
    const env = {
      TOOLGATE_CONFIG: adapterConfig(`cut-${uid()}`, { http, secrets: { UP_KEY: "CUT_UP_KEY" } }),
      CUT_UP_KEY: SECRET,
    };
    const { ids, messages, records } = await callTools(env, ["cut_body", {}]);
    expect(records[0]).toMatchObject({ status: "succeeded", output: { truncated: true } });
    expect(messages[0]!.content).toMatch(/^\.{990}\n\[response truncated at 1000 bytes\]$/);
    const stored = JSON.stringify(await json(await request(`/v1/calls/${ids[0]}`, { env })));
    for (const text of [JSON.stringify(messages), JSON.stringify(records), stored])
      expect(text).not.toContain(SECRET.slice(0, 4));
  });
});

describe("reasons written into records without the pipeline", () => {
  const env = () => ({
    TOOLGATE_CONFIG: adapterConfig(`why-${uid()}`, {
      tools: ["add", "send_message"],
      secrets: { UP_KEY: "WHY_UP_KEY" },
    }),
    WHY_UP_KEY: SECRET,
  });
  const park = async (vars: Record<string, unknown>) =>
    (await callTools(vars, ["send_message", { to: "bob", text: "hi" }])).ids[0]!;

  it("masks a cancel reason before cutting it to 500 characters", async () => {
    const vars = env();
    const id = await park(vars);
    const res = await request(`/v1/calls/${id}/cancel`, { env: vars, body: { reason: `${".".repeat(490)}${SECRET}` } });
    expect(res.status).toBe(200);
    const stored = await json(await request(`/v1/calls/${id}`, { env: vars }));
    expect(stored.record.error.message).toMatch(/before it was approved: \.{490}\[redacted\]$/);
    expect(JSON.stringify(stored)).not.toContain(SECRET.slice(0, 4));
  });

  it("masks an admin's deny reason", async () => {
    const vars = env();
    const id = await park(vars);
    const res = await request(`/v1/approvals/${id}`, {
      env: vars,
      key: ADMIN_KEY,
      body: { decision: "deny", reason: `key ${SECRET} leaked` },
    });
    expect(res.status).toBe(200);
    const stored = await json(await request(`/v1/calls/${id}`, { env: vars, key: ADMIN_KEY }));
    expect(stored.record.error.message).toMatch(/denied the call to "send_message": key \[redacted\] leaked$/);
    expect(JSON.stringify(stored)).not.toContain(SECRET);
  });
});
