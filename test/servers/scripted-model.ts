import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request the scripted model received. */
export interface ModelRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: { model?: string; messages?: unknown[]; tools?: unknown[] };
}

export interface ScriptedModel {
  /** Base URLs as a user enters them: `${url}/v1`. */
  url: string;
  requests: ModelRequest[];
  close(): Promise<void>;
}

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers":
    "authorization, content-type, x-api-key, anthropic-version, anthropic-dangerous-direct-browser-access",
};

type Message = { role?: string; content?: unknown; tool_call_id?: string };

/** The text of the last tool result in the conversation (either API), or undefined before any. */
function lastToolResult(messages: Message[]): string | undefined {
  const last = messages.at(-1);
  if (last?.role === "tool") {
    // Every tool message after the last assistant turn, in order.
    const start = messages.map((m) => m.role).lastIndexOf("assistant");
    return messages
      .slice(start + 1)
      .map((m) => String(m.content))
      .join(" | ");
  }
  if (last?.role === "user" && Array.isArray(last.content)) {
    const blocks = last.content.filter((b: { type?: string }) => b.type === "tool_result") as {
      content?: { text?: string }[];
    }[];
    return blocks.length === 0
      ? undefined
      : blocks.map((b) => b.content?.map((c) => c.text ?? "").join("") ?? "").join(" | ");
  }
  return undefined;
}

/**
 * A model that follows a script, speaking OpenAI Chat Completions (/v1/chat/completions) and
 * Anthropic Messages (/v1/messages) on 127.0.0.1, with CORS for a page: asked a question, it calls
 * `add` with { a: 2, b: 3 } once; given the tool's result, it answers "The tool said: <result>".
 * A prompt naming a tool (`use <tool> <json>`) calls that tool with those arguments instead, and
 * `use [{ "name", "args" }, …]` calls several in one turn; several results are answered joined by " | ".
 */
export async function startScriptedModel(): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  let ids = 0;
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "OPTIONS") return res.writeHead(204, CORS).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as ModelRequest["body"];
    requests.push({ path: req.url ?? "", headers: req.headers, body });
    const messages = (body.messages ?? []) as Message[];
    const result = lastToolResult(messages);
    const prompt = String(messages[0]?.content ?? "");
    const named = /^use (\w+) (\{.*\})$/.exec(prompt);
    const several = /^use (\[.*\])$/.exec(prompt);
    const calls: { name: string; args: unknown }[] = several
      ? JSON.parse(several[1]!)
      : [{ name: named?.[1] ?? "add", args: named ? JSON.parse(named[2]!) : { a: 2, b: 3 } }];
    const stamp = `${Date.now()}_${++ids}`;
    const idOf = (i: number) => `call_scripted_${stamp}_${i}`;
    const send = (answer: unknown) =>
      res.writeHead(200, { ...CORS, "content-type": "application/json" }).end(JSON.stringify(answer));
    if (req.url === "/v1/chat/completions") {
      const message =
        result === undefined
          ? {
              role: "assistant",
              content: null,
              tool_calls: calls.map((call, i) => ({
                id: idOf(i),
                type: "function",
                function: { name: call.name, arguments: JSON.stringify(call.args) },
              })),
            }
          : { role: "assistant", content: `The tool said: ${result}` };
      return send({
        id: `cmpl-${ids}`,
        object: "chat.completion",
        model: body.model,
        choices: [{ index: 0, message, finish_reason: result === undefined ? "tool_calls" : "stop" }],
      });
    }
    if (req.url === "/v1/messages") {
      const content =
        result === undefined
          ? calls.map((call, i) => ({ type: "tool_use", id: idOf(i), name: call.name, input: call.args }))
          : [{ type: "text", text: `The tool said: ${result}` }];
      return send({
        id: `msg-${ids}`,
        type: "message",
        role: "assistant",
        model: body.model,
        content,
        stop_reason: result === undefined ? "tool_use" : "end_turn",
      });
    }
    res
      .writeHead(404, { ...CORS, "content-type": "application/json" })
      .end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
