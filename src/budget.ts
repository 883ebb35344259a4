import { contentText, type CallOutput, type Content } from "./result";

/** Characters of text a result may carry to the model when its tool sets no outputBudget. */
export const DEFAULT_OUTPUT_BUDGET = 20_000;

/**
 * The text of an output as a model reads it: text items, resource links and text resources joined by newlines, or
 * the structured JSON when there is no text. Offsets for paging a stored result refer to this text.
 */
export function outputText(output: CallOutput): string {
  const texts: string[] = [];
  for (const item of output.content) {
    if (
      item.type === "text" ||
      item.type === "resource_link" ||
      (item.type === "resource" && "text" in item.resource)
    ) {
      texts.push(contentText(item));
    }
  }
  if (texts.length === 0 && output.structured !== undefined) return JSON.stringify(output.structured);
  return texts.join("\n");
}

/** The note appended to a cut result: says how much was shown and where the rest is. */
export function truncationNote(callId: string, shown: number, total: number): string {
  return (
    `[Output truncated: showing the first ${shown} of ${total} characters. The full result is stored with call ` +
    `${callId}; read the rest from offset ${shown} (GET /v1/calls/${callId}/result?offset=${shown}).]`
  );
}

/**
 * Cut an output to `budget` characters of its text (outputText), with a note saying so. Images, audio
 * and binary resources are kept (they are not text); text items and links become one prefix; structured output is
 * dropped, since a prefix of JSON is not JSON. The ledger stores the full output; this is what reaches the model.
 */
export function applyBudget(output: CallOutput, budget: number, callId: string): CallOutput {
  const text = outputText(output);
  if (text.length <= budget) return output;
  const shown = cutPoint(text, budget);
  // One text item holding exactly text[0, shown), so the note's offset is where the rest starts.
  const content: Content[] = output.content.filter(
    (item) =>
      item.type === "image" || item.type === "audio" || (item.type === "resource" && !("text" in item.resource)),
  );
  content.push({ type: "text", text: text.slice(0, shown) });
  content.push({ type: "text", text: truncationNote(callId, shown, text.length) });
  return { content, truncated: true };
}

/** text cut to at most `limit` characters, never inside a surrogate pair. Mask secrets before cutting. */
export function cutText(text: string, limit: number): string {
  return text.length <= limit ? text : text.slice(0, cutPoint(text, limit));
}

/** A cut at or before `limit` that does not split a surrogate pair. */
export function cutPoint(text: string, limit: number): number {
  if (limit >= text.length) return text.length;
  if (limit <= 0) return 0;
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}
