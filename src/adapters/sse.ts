/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: string;
  id?: string;
}

/**
 * The events of a text/event-stream body, as they arrive (WHATWG parsing rules: "data" lines
 * joined with "\n", comments ignored, an event ends at a blank line). Stops early when the
 * consumer returns, cancelling the rest of the body.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let event = "";
  let id: string | undefined;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        if (newline === buffer.length - 1 && buffer.endsWith("\r")) break; // maybe half of "\r\n"
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        if (line === "") {
          if (data.length > 0)
            yield { event: event || "message", data: data.join("\n"), ...(id === undefined ? {} : { id }) };
          data = [];
          event = "";
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const raw = colon < 0 ? "" : line.slice(colon + 1);
        const text = raw.startsWith(" ") ? raw.slice(1) : raw;
        if (field === "data") data.push(text);
        else if (field === "event") event = text;
        else if (field === "id") id = text;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
