/**
 * LangChain (@langchain/core) and LangGraph (@langchain/langgraph). Decoding is LangChain's own
 * OpenAI parser (parseToolCall, as ChatOpenAI uses on a response); the tool is `tool(fn, { schema:
 * zod })`. Two paths:
 *   langchain-tool: tool.invoke(toolCall) per call → ToolMessage (callbacks, zod parse, the function);
 *     a failure throws, so the app turns it into an error message, as ToolNode would;
 *   langgraph-toolnode: the prebuilt ToolNode invoked with the AIMessage → ToolMessages, its own
 *     error handling included.
 */
import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { parseToolCall } from "@langchain/core/output_parsers/openai_tools";
import { tool } from "@langchain/core/tools";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { z } from "zod";
import { addFn, type AssistantMessage, type Peer } from "./workload";

const add = tool(async (args: { a: number; b: number }) => addFn(args), {
  name: "add",
  description: "Add two numbers",
  schema: z.object({ a: z.number(), b: z.number() }),
});

const decode = (message: AssistantMessage) => message.tool_calls.map((raw) => parseToolCall(raw, { returnId: true }));

const encode = (messages: ToolMessage[]) =>
  JSON.stringify(
    messages.map((m) => ({
      role: "tool",
      tool_call_id: m.tool_call_id,
      content: typeof m.content === "string" ? m.content : JSON.stringify(m.content),
    })),
  );

export const langchainTool: Peer = {
  name: "langchain-tool",
  path: "parseToolCall + tool.invoke(toolCall) (zod)",
  async setup() {
    const invoke = async (call: ReturnType<typeof decode>[number]): Promise<ToolMessage> => {
      try {
        return (await add.invoke(call)) as ToolMessage;
      } catch (error) {
        return new ToolMessage({
          tool_call_id: call.id!,
          name: call.name,
          status: "error",
          content: `Error: ${(error as Error).message}`,
        });
      }
    };
    return { run: async (message: AssistantMessage) => encode(await Promise.all(decode(message).map(invoke))) };
  },
};

export const langgraphToolNode: Peer = {
  name: "langgraph-toolnode",
  path: "parseToolCall + ToolNode.invoke({ messages }) (zod)",
  async setup() {
    const node = new ToolNode([add]);
    return {
      async run(message: AssistantMessage) {
        const ai = new AIMessage({ content: "", tool_calls: decode(message) });
        const out = (await node.invoke({ messages: [ai] })) as { messages: ToolMessage[] };
        return encode(out.messages);
      },
    };
  },
};
