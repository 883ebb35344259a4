import type { RpcNotification, RpcResponse } from "./protocol";

type Message = RpcNotification | RpcResponse;

const encoder = new TextEncoder();

function sseEvent(message: Message): Uint8Array {
  return encoder.encode(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
}

/**
 * The notifications of one POST while its requests run. They wait in a queue until the transport
 * decides how to answer: `first` settles on the first one, which is what turns the answer into SSE.
 */
export class NotificationQueue {
  private queue: RpcNotification[] = [];
  private listener: ((message: RpcNotification) => void) | undefined;
  private closed = false;
  private resolveFirst!: () => void;
  readonly first = new Promise<void>((resolve) => (this.resolveFirst = resolve));

  constructor(private readonly enabled: boolean) {}

  push(method: string, params: Record<string, unknown>): void {
    // A client that accepts only JSON cannot receive notifications: they are dropped, not buffered.
    if (this.closed || !this.enabled) return;
    const message: RpcNotification = { jsonrpc: "2.0", method, params };
    if (this.listener) this.listener(message);
    else this.queue.push(message);
    this.resolveFirst();
  }

  /** Hands over what is queued and everything after it. */
  drain(listener: (message: RpcNotification) => void): void {
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
 * end of the stream. A client that goes away aborts the POST's calls (their gate slots are freed).
 */
export function sseResponse(
  queue: NotificationQueue,
  responses: Promise<RpcResponse[]>,
  abort: (reason: string) => void,
  headers: Record<string, string> = {},
): Response {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const write = (message: Message) => {
    writer.write(sseEvent(message)).catch(() => abort("The client closed the response stream."));
  };
  queue.drain(write);
  void responses.then(async (answers) => {
    queue.close();
    for (const answer of answers) write(answer);
    await writer.close().catch(() => undefined);
  });
  return new Response(readable, {
    status: 200,
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", ...headers },
  });
}
