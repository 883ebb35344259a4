/** One tool call as decoded from a chat format, before any checking: the pipeline's input. */
export interface ToolCall {
  /** The format's call id (tool_call_id, tool_use id, …); generated when the format has none. */
  id: string;
  name: string;
  /** Raw JSON text (OpenAI) or an already-parsed value (Anthropic, Gemini, MCP). Checked by the pipeline. */
  arguments: unknown;
}
