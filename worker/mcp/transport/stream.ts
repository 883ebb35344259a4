import type { NotificationMethod, RpcNotification, RpcRequest, RpcResponse } from "../../../src/mcp/messages";

/** Before its responses a POST's stream carries notifications and requests to the client (v2025/legacy-ask.ts). */
type Outgoing = RpcNotification | RpcRequest;
type Message = Outgoing | RpcResponse;

const encoder = new TextEncoder();

/**
 * How long an SSE answer stays silent before a comment line goes out. Proxies and load balancers cut
 * streams idle for 30 to 100 s (nginx 60 s, AWS ALB 60 s, Cloudflare 100 s), and a legacy tools/call
 * stream is idle for as long as a person takes to answer an elicitation: 15 s is well under the
 * shortest of those, and costs a 13-byte line. TOOLGATE_MCP_KEEPALIVE_SECONDS sets another.
 */
export const DEFAULT_KEEPALIVE_MS = 15_000;
const KEEPALIVE = encoder.encode(": keepalive\n\n");

function sseEvent(message: Message): Uint8Array {
  return encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/**
 * The notifications (and requests to the client) of one POST while its requests run. They wait in a
 * queue until the transport decides how to answer: `first` settles on the first one, which is what
 * turns the answer into SSE.
 */
export class NotificationQueue {
  private queue: Outgoing[] = [];
  private listener: ((message: Outgoing) => void) | undefined;
  private closed = false;
  private resolveFirst!: () => void;
  readonly first = new Promise<void>((resolve) => (this.resolveFirst = resolve));

  constructor(readonly enabled: boolean) {}

  push(method: NotificationMethod, params: Record<string, unknown>): void {
    this.send({ jsonrpc: "2.0", method, params });
  }

  /** A message on the stream; false when it cannot go (the client reads only JSON, or the stream ended). */
  send(message: Outgoing): boolean {
    // A client that accepts only JSON cannot receive notifications: they are dropped, not buffered.
    if (this.closed || !this.enabled) return false;
    if (this.listener) this.listener(message);
    else this.queue.push(message);
    this.resolveFirst();
    return true;
  }

  /** Hands over what is queued and everything after it. */
  drain(listener: (message: Outgoing) => void): void {
    for (const message of this.queue) listener(message);
    this.queue = [];
    this.listener = listener;
  }

  close(): void {
    this.closed = true;
    this.listener = undefined;
  }
}

/**
 * An SSE answer: queued and later notifications, then the responses once they are all in, then the
 * end of the stream; a comment line after each `keepaliveMs` of silence in between. A client that
 * goes away aborts the POST's calls (their gate slots are freed).
 */
export function sseResponse(
  queue: NotificationQueue,
  responses: Promise<RpcResponse[]>,
  abort: (reason: string) => void,
  headers: Record<string, string> = {},
  keepaliveMs = DEFAULT_KEEPALIVE_MS,
): Response {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  let silence: ReturnType<typeof setTimeout> | null = null;
  const send = (bytes: Uint8Array) => {
    clearTimeout(silence);
    silence = setTimeout(() => send(KEEPALIVE), keepaliveMs);
    writer.write(bytes).catch(() => {
      clearTimeout(silence);
      abort("The client closed the response stream.");
    });
  };
  const write = (message: Message) => send(sseEvent(message));
  queue.drain(write);
  // A rejection (a bug: answers are caught where they are made) still ends the stream and its keepalives.
  void responses
    .catch((): RpcResponse[] => [])
    .then(async (answers) => {
      queue.close();
      for (const answer of answers) write(answer);
      clearTimeout(silence);
      await writer.close().catch(() => undefined);
    });
  return new Response(readable, {
    status: 200,
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", ...headers },
  });
}
