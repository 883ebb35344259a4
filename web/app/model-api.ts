/**
 * The two model APIs the Playground speaks, from the browser straight to the endpoint the user
 * entered (the key goes there and nowhere else): OpenAI Chat Completions and Anthropic Messages.
 * Each says how to ask for a turn and what came back: text, the assistant message to keep, and
 * whether it holds tool calls.
 */
export type ModelApi = "openai" | "anthropic";

export interface ModelSettings {
  api: ModelApi;
  /** The API's base URL, e.g. https://api.openai.com/v1 or https://api.anthropic.com/v1. */
  endpoint: string;
  model: string;
  key: string;
}

export interface ModelTurn {
  /** The assistant message to append to the conversation (and to hand to toolgate when it calls tools). */
  message: Record<string, unknown>;
  text: string;
  toolCalls: { id: string; name: string; args: unknown }[];
}

/** Largest model answer read (characters): a broken endpoint cannot flood the tab. */
const MAX_ANSWER_CHARS = 2_000_000;
const TURN_TIMEOUT_MS = 120_000;
const MAX_TOKENS = 1024;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function parseArgs(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function openaiTurn(body: unknown): ModelTurn {
  const message =
    isObject(body) && Array.isArray(body.choices) && isObject(body.choices[0]) ? body.choices[0].message : undefined;
  if (!isObject(message)) throw new Error("The answer has no choices[0].message.");
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isObject) : [];
  return {
    message: {
      role: "assistant",
      content: message.content ?? null,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    },
    text: typeof message.content === "string" ? message.content : "",
    toolCalls: calls.map((c) => ({
      id: String(c.id),
      name: String(isObject(c.function) ? c.function.name : ""),
      args: parseArgs(isObject(c.function) ? c.function.arguments : undefined),
    })),
  };
}

function anthropicTurn(body: unknown): ModelTurn {
  if (!isObject(body) || !Array.isArray(body.content)) throw new Error("The answer has no content blocks.");
  const blocks = body.content.filter(isObject);
  return {
    message: { role: "assistant", content: blocks },
    text: blocks
      .filter((b) => b.type === "text")
      .map((b) => String(b.text ?? ""))
      .join("\n"),
    toolCalls: blocks
      .filter((b) => b.type === "tool_use")
      .map((b) => ({ id: String(b.id), name: String(b.name), args: b.input })),
  };
}

function request(settings: ModelSettings, messages: unknown[], tools: unknown[]): { url: string; init: RequestInit } {
  const base = settings.endpoint.replace(/\/+$/, "");
  if (settings.api === "openai") {
    return {
      url: `${base}/chat/completions`,
      init: {
        headers: { authorization: `Bearer ${settings.key}` },
        body: JSON.stringify({ model: settings.model, messages, ...(tools.length > 0 ? { tools } : {}) }),
      },
    };
  }
  return {
    url: `${base}/messages`,
    init: {
      headers: {
        "x-api-key": settings.key,
        "anthropic-version": "2023-06-01",
        "anthropic-dangerous-direct-browser-access": "true",
      },
      body: JSON.stringify({
        model: settings.model,
        max_tokens: MAX_TOKENS,
        messages,
        ...(tools.length > 0 ? { tools } : {}),
      }),
    },
  };
}

/** One turn of the model: the conversation so far and the tools, answered as a ModelTurn (or a clear Error). */
export async function askModel(
  settings: ModelSettings,
  messages: unknown[],
  tools: unknown[],
  signal: AbortSignal,
): Promise<ModelTurn> {
  const { url, init } = request(settings, messages, tools);
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(init.headers as Record<string, string>) },
    body: init.body ?? null,
    signal: AbortSignal.any([signal, AbortSignal.timeout(TURN_TIMEOUT_MS)]),
    credentials: "omit",
    referrerPolicy: "no-referrer",
  });
  const text = await response.text();
  if (text.length > MAX_ANSWER_CHARS)
    throw new Error(`The model's answer is larger than ${MAX_ANSWER_CHARS} characters.`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`The endpoint answered ${response.status} with no JSON: ${text.slice(0, 200)}`);
  }
  if (!response.ok) {
    const error = isObject(body) && isObject(body.error) ? String(body.error.message ?? "") : "";
    throw new Error(`The endpoint answered ${response.status}${error ? `: ${error}` : ""}`);
  }
  return settings.api === "openai" ? openaiTurn(body) : anthropicTurn(body);
}
