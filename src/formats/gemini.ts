import { resultText, type CallResult } from "../result";
import { toGeminiParameters, type GeminiSchema } from "./gemini-schema";
import type { Tool } from "../tool";
import type { Format } from "./format";
import type { ToolCall } from "../tool-call";
import { DecodeError, decodeSafely, generateId, isRecord, requireString } from "./shared";

/** A Gemini FunctionDeclaration (@google/genai). */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: GeminiSchema;
}

/** A functionResponse part (@google/genai Part with FunctionResponse). */
export interface FunctionResponsePart {
  functionResponse: {
    id?: string;
    name: string;
    response: { output: unknown } | { error: { code: string; message: string } };
    /** Images the tool returned (multimodal function responses). */
    parts?: { inlineData: { mimeType: string; data: string } }[];
  };
}

/** Ids toolgate made up because the model sent none; they are not echoed back to Gemini. */
const GENERATED = "toolgate-gemini-";

function hasFunctionCall(part: unknown): boolean {
  return isRecord(part) && isRecord(part.functionCall);
}

/** A GenerateContentResponse (candidates), a Content (parts) or a parts array with a functionCall. */
function detect(body: unknown): boolean {
  if (Array.isArray(body)) return body.some(hasFunctionCall);
  if (!isRecord(body)) return false;
  if (Array.isArray(body.candidates)) return true;
  return Array.isArray(body.parts) && body.parts.some(hasFunctionCall);
}

function partsOf(body: unknown): { parts: unknown[]; at: string } {
  if (Array.isArray(body)) return { parts: body, at: "parts" };
  if (isRecord(body) && Array.isArray(body.candidates)) {
    // Several candidates are alternative answers; the app continues the first one.
    const content = isRecord(body.candidates[0]) ? body.candidates[0].content : undefined;
    const parts = isRecord(content) ? content.parts : undefined;
    return { parts: Array.isArray(parts) ? parts : [], at: "candidates[0].content.parts" };
  }
  if (isRecord(body) && Array.isArray(body.parts)) return { parts: body.parts, at: "parts" };
  throw new DecodeError("Expected a GenerateContentResponse, a Content, or an array of parts.");
}

function decodeParts(body: unknown): ToolCall[] {
  const { parts, at } = partsOf(body);
  const calls: ToolCall[] = [];
  parts.forEach((part, i) => {
    if (!isRecord(part)) throw new DecodeError(`${at}[${i}] must be a part object.`);
    if (part.functionCall === undefined) return;
    const where = `${at}[${i}].functionCall`;
    if (!isRecord(part.functionCall)) throw new DecodeError(`${where} must be an object.`);
    const call = part.functionCall;
    const name = requireString(call, "name", where);
    const id = call.id === undefined ? generateId(GENERATED) : requireString(call, "id", where);
    // Gemini leaves args out for functions without parameters.
    calls.push({ id, name, arguments: call.args === undefined ? {} : call.args });
  });
  return calls;
}

function functionResponse(result: CallResult): FunctionResponsePart {
  const id = result.callId.startsWith(GENERATED) ? {} : { id: result.callId };
  if (!result.ok) {
    // Gemini's convention: `error` for failures, `output` for results.
    const error = { code: result.error.code, message: result.error.message };
    return { functionResponse: { ...id, name: result.tool, response: { error } } };
  }
  const { content, structured } = result.output;
  const images = content.flatMap((item) =>
    item.type === "image" ? [{ inlineData: { mimeType: item.mimeType, data: item.data } }] : [],
  );
  // Structured output when the content is just its JSON text (or empty); otherwise the text a model reads.
  const onlyJson =
    content.length === 0 ||
    (content.length === 1 && content[0]?.type === "text" && content[0].text === JSON.stringify(structured));
  const output = structured !== undefined && onlyJson ? structured : resultText(result);
  return {
    functionResponse: {
      ...id,
      name: result.tool,
      response: { output },
      ...(images.length > 0 ? { parts: images } : {}),
    },
  };
}

export const gemini: Format<
  GeminiFunctionDeclaration,
  { content: { role: "user"; parts: FunctionResponsePart[] } },
  FunctionResponsePart
> = {
  name: "gemini",
  detect,
  decode: (body) => decodeSafely(decodeParts, body),
  encode: (results: readonly CallResult[]) => ({ content: { role: "user", parts: results.map(functionResponse) } }),
  encodeResult: functionResponse,
  toolDefinition(tool: Tool): GeminiFunctionDeclaration {
    const parameters = toGeminiParameters(tool);
    // Gemini refuses an OBJECT without properties: a tool without parameters declares none.
    const empty = Object.keys(parameters.properties ?? {}).length === 0;
    return { name: tool.name, description: tool.description, ...(empty ? {} : { parameters }) };
  },
  modelOutput: (calls) => ({
    candidates: [
      { content: { role: "model", parts: calls.map(({ id, name, args }) => ({ functionCall: { id, name, args } })) } },
    ],
  }),
};
