import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from "@modelcontextprotocol/client";
import { UrlElicitationRequiredError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it, vi } from "vitest";
import {
  apiRequests,
  connectDemo,
  connectionsTenantEnv,
  type ConnectionsTenantEnv,
  seenTokens,
} from "../helpers/connections";
import { MCP_URL, mcpFetch, MODERN, type McpTarget } from "../helpers/mcp";
import { v1Client } from "../helpers/mcp-ask-legacy";
import { BASE, json, request } from "../helpers/requests";
import { openSse, type Sse } from "../helpers/sse";

/**
 * Over MCP, a call needing a connection the user lacks asks them to connect: a URL-mode elicitation of
 * the connect page (2025-11-25, on the call's stream; 2026-07-28, an input-required result). The
 * person connects in their browser while the client holds the question; the call then completes with
 * their own data. Official MCP SDK clients, the real connect flow (demo IdP, upstream oidc-provider).
 */

const CONNECT_URL = `${BASE}/connections/demo/connect`;
const REFUSED = "Error [denied]: Connect Demo first (not connected to demo)";
const NOT_CONNECTED = `${REFUSED}: open ${CONNECT_URL}, then call again.`;
const target = (env: ConnectionsTenantEnv, user: string): McpTarget => ({
  vars: env,
  headers: { "toolgate-user": user },
});

/** Answers a URL-mode elicitation as a person would: opens the URL, connects there, then accepts. */
function connectingAnswer(login: string, env: ConnectionsTenantEnv, asked: Record<string, unknown>[]) {
  return async (_message: string, params: Record<string, unknown> = {}) => {
    asked.push(params);
    await connectDemo(login, env, new URL(String(params.url)).pathname);
    return { action: "accept" };
  };
}

const itemsOf = (result: object) => (result as { structuredContent?: unknown }).structuredContent as { owner: string };

describe("asking the user to connect over MCP", () => {
  it("2025-11-25: asks each user with a URL-mode elicitation, and the call completes with their own data", async () => {
    const env = connectionsTenantEnv("conn-mcp");
    const logged: string[] = [];
    const log = vi.spyOn(console, "log").mockImplementation((line: unknown) => void logged.push(String(line)));
    for (const login of ["alice", "bob"]) {
      const asked: Record<string, unknown>[] = [];
      const { client } = await v1Client(target(env, login), {
        elicit: connectingAnswer(login, env, asked),
        elicitation: { url: {} },
      });
      const first = await client.callTool({ name: "my_items", arguments: {} });
      expect(first.isError, JSON.stringify(first)).toBeFalsy();
      expect(itemsOf(first).owner).toBe(login);
      expect(asked).toEqual([
        {
          mode: "url",
          url: CONNECT_URL,
          elicitationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          message: "This tool acts as you through Demo (not connected to demo). Connect your account to continue.",
        },
      ]);
      // Connected: the next call asks nothing.
      const again = await client.callTool({ name: "my_items", arguments: {} });
      expect(itemsOf(again).owner).toBe(login);
      expect(asked).toHaveLength(1);
      await client.close();
    }
    // No record of these calls (the rounds that asked, those that answered) holds a token the API was sent.
    const listed = await request("/v1/calls?tool=my_items", { env, headers: { "toolgate-user": "alice" } });
    const records = await listed.text();
    expect(listed.status, records).toBe(200);
    expect(records).toContain('"status":"input_required"');
    const tokens = (await seenTokens()).filter((token) => token.length > 0);
    expect(tokens.length).toBeGreaterThan(0);
    for (const token of tokens) expect(records).not.toContain(token);
    // Nor any event of them (the stream's newest, which the chat key sees), nor any log line.
    const stream = await openSse(await request("/v1/events?recent=100", { env }));
    await stream.ready();
    const myFinished = (frames: Sse[]) =>
      frames.filter((f) => f.event === "call.finished" && f.data.record?.tool === "my_items");
    const frames = await stream.until((all) => myFinished(all).length >= 6);
    await stream.close();
    log.mockRestore();
    expect(myFinished(frames).length).toBeGreaterThanOrEqual(6);
    expect(logged.some((line) => line.includes('"tool":"my_items"'))).toBe(true);
    const events = JSON.stringify(frames);
    for (const token of tokens) {
      expect(events).not.toContain(token);
      for (const line of logged) expect(line).not.toContain(token);
    }
  });

  it("refuses, naming the connect URL, when the user declines, and asks no client that cannot open a URL", async () => {
    const env = connectionsTenantEnv("conn-mcp-no");
    const before = await apiRequests();
    const declining = await v1Client(target(env, "alice"), {
      elicit: () => ({ action: "decline" }),
      elicitation: { url: {} },
    });
    const declined = await declining.client.callTool({ name: "my_items", arguments: {} });
    await declining.client.close();
    expect(declining.asked).toEqual(["elicitation/create"]);
    expect(declined.isError).toBe(true);
    expect(declined.content).toEqual([
      {
        type: "text",
        text:
          'Error [denied]: The user did not connect Demo (they answered "decline"): ' +
          `open ${CONNECT_URL} to connect, then call again.`,
      },
    ]);
    // A client answering forms only, and one answering nothing: nothing is asked (2025-11-25: -32042, below).
    for (const answers of [{ elicit: () => ({ action: "accept" }) }, {}]) {
      const { client, asked } = await v1Client(target(env, "alice"), answers);
      const refused = await client.callTool({ name: "my_items", arguments: {} }).catch((error: unknown) => error);
      await client.close();
      expect(asked).toEqual([]);
      expect(refused).toBeInstanceOf(UrlElicitationRequiredError);
    }
    // Accepted but not connected (the person closed the page): refused the same way.
    const accepting = await v1Client(target(env, "alice"), {
      elicit: () => ({ action: "accept" }),
      elicitation: { url: {} },
    });
    const unfinished = await accepting.client.callTool({ name: "my_items", arguments: {} });
    await accepting.client.close();
    expect(accepting.asked).toEqual(["elicitation/create"]);
    expect(unfinished.content).toEqual([{ type: "text", text: NOT_CONNECTED }]);
    expect(await apiRequests()).toBe(before);
  });

  it("2025-11-25: a client declaring no URL-mode elicitation gets -32042 naming the connect page", async () => {
    const env = connectionsTenantEnv("conn-mcp-32042");
    const before = await apiRequests();
    const { client, asked } = await v1Client(target(env, "alice"), { elicit: () => ({ action: "accept" }) });
    const refused = await client.callTool({ name: "my_items", arguments: {} }).catch((error: unknown) => error);
    expect(asked).toEqual([]);
    expect(refused).toBeInstanceOf(UrlElicitationRequiredError);
    const { code, elicitations } = refused as UrlElicitationRequiredError;
    expect(code).toBe(-32042);
    expect(elicitations).toEqual([
      {
        mode: "url",
        url: CONNECT_URL,
        elicitationId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        message: NOT_CONNECTED.replace("Error [denied]: ", ""),
      },
    ]);
    expect(await apiRequests()).toBe(before);
    // The person opens the page and connects; the call made again is answered with their data.
    await connectDemo("alice", env, new URL(elicitations[0]!.url).pathname);
    const answered = await client.callTool({ name: "my_items", arguments: {} });
    await client.close();
    expect(answered.isError, JSON.stringify(answered)).toBeFalsy();
    expect(itemsOf(answered).owner).toBe("alice");
    // Before 2025-11-25 there is no -32042: the result names the URL.
    const older = await v1Client({ ...target(env, "bob"), version: "2025-06-18" }, {});
    const olderRefused = await older.client.callTool({ name: "my_items", arguments: {} });
    await older.client.close();
    expect(olderRefused.content).toEqual([{ type: "text", text: NOT_CONNECTED }]);
  });

  it("2026-07-28: the input-required round asks to connect, and resolves once the user has", async () => {
    const env = connectionsTenantEnv("conn-mcp-2026");
    for (const login of ["alice", "bob"]) {
      const client = new V2Client(
        { name: "connect-test", version: "1" },
        { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { url: {} } } },
      );
      const asked: Record<string, unknown>[] = [];
      const answer = connectingAnswer(login, env, asked);
      client.setRequestHandler("elicitation/create", async (req) => {
        const params = req.params as Record<string, unknown>;
        return (await answer(String(params.message), params)) as never;
      });
      await client.connect(new V2Transport(new URL(MCP_URL), { fetch: mcpFetch(target(env, login)) }));
      const result = await client.callTool({ name: "my_items", arguments: {} });
      await client.close();
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(itemsOf(result).owner).toBe(login);
      expect(asked).toEqual([expect.objectContaining({ mode: "url", url: CONNECT_URL })]);
    }
    const records = (await json(await request("/v1/calls?tool=my_items", { env }))).calls;
    expect(records.length).toBeGreaterThan(0);
  });
});
