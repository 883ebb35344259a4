import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevServer, type DevServer } from "../../servers/wrangler-dev";

// The body deadline over a real TCP socket: `wrangler dev` on 127.0.0.1, a client writing its body
// one byte every 500 ms (or not at all). The tenant's deadline is kept short through TOOLGATE_CONFIG.

const DEADLINE_MS = 1_500;
/** The answer must come after the deadline and well before this. */
const BOUND_MS = DEADLINE_MS + 3_000;
const CALL_KEY_HASH = "06311ac15f2412fb7144a9977924f7a6a137403f1201f5bd0588cc02cd08e33f"; // SHA-256 of "dev-call-key"

let server: DevServer;
let host: string;
let port: number;

beforeAll(async () => {
  const config = {
    name: "slow",
    tools: ["add"],
    keys: [{ name: "k", hash: CALL_KEY_HASH, scopes: ["call"] }],
    limits: { bodyTimeoutMs: DEADLINE_MS },
  };
  server = await startDevServer({ vars: { TOOLGATE_CONFIG: JSON.stringify(config), TOOLGATE_DEMO: "false" } });
  const url = new URL(server.url);
  host = url.hostname;
  port = Number(url.port);
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

interface RawAnswer {
  status: number;
  body: string;
  elapsedMs: number;
  bytesSent: number;
}

/**
 * Sends the request head, then the body one piece every `everyMs` (none when `piece` is null) until
 * the server's whole answer has arrived; answers its status, body and how long it took.
 */
function slowRequest(
  path: string,
  headers: Record<string, string>,
  piece: string | null,
  everyMs = 500,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, host);
    const started = Date.now();
    let bytesSent = 0;
    let received = Buffer.alloc(0);
    let timer: ReturnType<typeof setInterval> | undefined;
    const finish = (error?: Error) => {
      clearInterval(timer);
      clearTimeout(guard);
      socket.destroy();
      if (error) return reject(error);
      const text = received.toString("utf8");
      const [head = "", ...rest] = text.split("\r\n\r\n");
      resolve({
        status: Number(head.split(" ")[1]),
        body: rest.join("\r\n\r\n"),
        elapsedMs: Date.now() - started,
        bytesSent,
      });
    };
    const guard = setTimeout(() => finish(new Error(`no complete answer within ${BOUND_MS * 2} ms`)), BOUND_MS * 2);
    socket.on("error", (error) => finish(error));
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (answerComplete(received)) finish();
    });
    socket.on("end", () => finish());
    socket.on("connect", () => {
      const lines = Object.entries({ host: `${host}:${port}`, authorization: "Bearer dev-call-key", ...headers }).map(
        ([k, v]) => `${k}: ${v}`,
      );
      socket.write(`POST ${path} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n`);
      if (piece === null) return;
      timer = setInterval(() => {
        if (!socket.writable) return;
        socket.write(piece);
        bytesSent++;
      }, everyMs);
    });
  });
}

/** The head has arrived and the body is as long as its Content-Length, or a chunked body has ended. */
function answerComplete(data: Buffer): boolean {
  const text = data.toString("utf8");
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
  if (length) return Buffer.byteLength(text.slice(end + 4)) >= Number(length[1]);
  return text.endsWith("0\r\n\r\n");
}

describe("request body deadline over a real socket (wrangler dev)", { timeout: 30_000 }, () => {
  it("answers 408 body_timeout to a Content-Length body trickling in one byte every 500 ms", async () => {
    const answer = await slowRequest(
      "/v1/calls/openai",
      { "content-type": "application/json", "content-length": "200" },
      " ",
    );
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({
      error: { code: "body_timeout", message: `The request body did not arrive in full within ${DEADLINE_MS} ms.` },
    });
    expect(answer.bytesSent).toBeGreaterThanOrEqual(2); // it really was trickling when the deadline passed
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(DEADLINE_MS);
    expect(answer.elapsedMs).toBeLessThan(BOUND_MS);
  });

  it("answers 408 to a chunked upload trickling one byte at a time, on /mcp", async () => {
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "transfer-encoding": "chunked",
    };
    const answer = await slowRequest("/mcp", headers, "1\r\n \r\n");
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body).error.code).toBe("body_timeout");
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(DEADLINE_MS);
    expect(answer.elapsedMs).toBeLessThan(BOUND_MS);
  });

  it("answers 408 to an upload that stalls with no bytes at all", async () => {
    const answer = await slowRequest("/v1/calls", { "content-type": "application/json", "content-length": "50" }, null);
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body).error.code).toBe("body_timeout");
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(DEADLINE_MS);
    expect(answer.elapsedMs).toBeLessThan(BOUND_MS);
  });

  it("still answers a body that arrives in time", async () => {
    const res = await fetch(`http://${host}:${port}/v1/calls/openai`, {
      method: "POST",
      headers: { authorization: "Bearer dev-call-key", "content-type": "application/json" },
      body: JSON.stringify({
        role: "assistant",
        content: null,
        tool_calls: [{ id: "fast", type: "function", function: { name: "add", arguments: '{"a":1,"b":2}' } }],
      }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { messages: { content: string }[] }).messages[0]!.content).toBe('{"sum":3}');
  });
});
