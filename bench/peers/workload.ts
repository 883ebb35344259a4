/**
 * The peer benchmark's workload, shared by every runtime: OpenAI Chat Completions assistant messages
 * asking for add({a,b}) (W1 one call, W2 a batch of 100, W3 one call with a string where a number
 * belongs), and the check every runtime's answer must pass before it is timed.
 *
 * Each runtime turns an assistant message into the JSON text of the OpenAI tool messages the app
 * would append to its conversation: decode → validate with its own schema → run add → encode.
 */
export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface AssistantMessage {
  role: "assistant";
  content: null;
  tool_calls: OpenAIToolCall[];
}

export interface ToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/** One runtime, set up once; run() answers one assistant message with the JSON of its tool messages. */
export interface Runner {
  run(message: AssistantMessage): Promise<string> | string;
  /** Releases what setup opened (connections, transports). */
  close?(): Promise<void>;
}

export interface Peer {
  name: string;
  /** Which code path is measured, in a few words (shown in the table's notes). */
  path: string;
  setup(): Promise<Runner>;
}

export const addFn = ({ a, b }: { a: number; b: number }) => ({ sum: a + b });

const toolCall = (i: number, args: string): OpenAIToolCall => ({
  id: `call_${i}`,
  type: "function",
  function: { name: "add", arguments: args },
});

export const W1: AssistantMessage = { role: "assistant", content: null, tool_calls: [toolCall(0, '{"a":2,"b":3}')] };
export const W2: AssistantMessage = {
  role: "assistant",
  content: null,
  tool_calls: Array.from({ length: 100 }, (_, i) => toolCall(i, `{"a":${i},"b":3}`)),
};
export const W3: AssistantMessage = { role: "assistant", content: null, tool_calls: [toolCall(0, '{"a":"2","b":3}')] };

export const WORKLOADS = [
  { key: "W1", name: "W1 single add", message: W1, ops: 5_000 },
  { key: "W2", name: "W2 batch of 100", message: W2, ops: 50 },
  { key: "W3", name: "W3 invalid arguments", message: W3, ops: 5_000 },
] as const;

/** The tool message's content parsed as JSON, or undefined when it is plain text. */
function contentJson(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return undefined;
  }
}

/**
 * Throws unless the answer is right: one tool message per call, ids in order, the sums for valid
 * calls, and for W3 an error (not a sum) that the model can read.
 */
export function checkAnswer(message: AssistantMessage, answer: string): void {
  const messages = JSON.parse(answer) as ToolMessage[];
  if (!Array.isArray(messages) || messages.length !== message.tool_calls.length) {
    throw new Error(`expected ${message.tool_calls.length} tool messages, got ${answer.slice(0, 200)}`);
  }
  message.tool_calls.forEach((call, i) => {
    const got = messages[i]!;
    if (got.role !== "tool" || got.tool_call_id !== call.id || typeof got.content !== "string") {
      throw new Error(`tool message ${i} malformed: ${JSON.stringify(got)}`);
    }
    const args = JSON.parse(call.function.arguments) as { a: unknown; b: unknown };
    const body = contentJson(got.content) as { sum?: unknown } | undefined;
    if (typeof args.a === "number" && typeof args.b === "number") {
      if (body?.sum !== args.a + args.b)
        throw new Error(`call ${call.id}: expected sum ${args.a + args.b}, got ${got.content}`);
    } else if (body?.sum !== undefined || got.content.length === 0) {
      throw new Error(`call ${call.id}: invalid arguments were not refused: ${got.content}`);
    }
  });
}
