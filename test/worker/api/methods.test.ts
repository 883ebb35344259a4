import { describe, expect, it } from "vitest";
import { FORMAT_NAMES } from "../../../src/formats";
import { json, request, tenantConfig } from "../helpers/requests";

/**
 * A path the API serves, asked with a method it does not take, answers 405 with the methods it takes
 * (Allow), not a 404 that says the path is unknown or, for /v1/calls/<format>, that no such call exists.
 */

const isolated = () => ({ TOOLGATE_CONFIG: tenantConfig({ name: `m405-${crypto.randomUUID().slice(0, 8)}` }) });

async function refused(path: string, method: string): Promise<{ status: number; allow: string | null; body: any }> {
  const res = await request(path, { method });
  const body = method === "HEAD" ? undefined : await res.json();
  return { status: res.status, allow: res.headers.get("allow"), body };
}

describe("405 Method Not Allowed", () => {
  it("/v1/calls/<format> takes POST only, for every format", async () => {
    for (const format of FORMAT_NAMES) {
      for (const method of ["GET", "HEAD", "PUT", "PATCH", "DELETE"]) {
        const answer = await refused(`/v1/calls/${format}`, method);
        const seen = { format, method, status: answer.status, allow: answer.allow };
        expect(seen).toEqual({ format, method, status: 405, allow: "POST" });
        if (method !== "HEAD") {
          const message = `/v1/calls/${format} takes POST, not ${method}.`;
          expect(answer.body.error).toEqual({ code: "method_not_allowed", message });
        }
      }
    }
  });

  it("a call whose id is a format's name is still read by GET", async () => {
    const env = isolated();
    const body = [{ id: "gemini", type: "function", function: { name: "add", arguments: '{"a":1,"b":1}' } }];
    expect((await request("/v1/calls/openai", { env, body })).status).toBe(200);
    const read = await request("/v1/calls/gemini", { env });
    expect(read.status).toBe(200);
    expect((await json(read)).record).toMatchObject({ callId: "gemini", status: "succeeded" });
    expect((await request("/v1/calls/gemini", { env, method: "PUT" })).headers.get("allow")).toBe("POST");
  });

  it("every other route family names the methods it takes", async () => {
    const cases: [path: string, method: string, allow: string][] = [
      ["/v1/calls", "PUT", "GET, HEAD, POST"],
      ["/v1/calls/some-id/cancel", "GET", "POST"],
      ["/v1/calls/some-id/input", "GET", "POST"],
      ["/v1/calls/some-id/result", "POST", "GET, HEAD"],
      ["/v1/tools/openai", "POST", "GET, HEAD"],
      ["/v1/approvals/some-id", "GET", "POST"],
    ];
    for (const [path, method, allow] of cases) {
      const answer = await refused(path, method);
      expect({ path, method, status: answer.status, allow: answer.allow, code: answer.body.error.code }).toEqual({
        path,
        method,
        status: 405,
        allow,
        code: "method_not_allowed",
      });
    }
    const mcp = await refused("/mcp", "PUT");
    const message = "Method Not Allowed: /mcp takes POST, DELETE, not PUT.";
    expect([mcp.status, mcp.allow, mcp.body.error]).toEqual([405, "POST, DELETE", { code: -32000, message }]);
    // A path no route takes is still unknown.
    expect((await refused("/v1/nothing-here", "PUT")).status).toBe(404);
  });
});
