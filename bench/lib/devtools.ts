/**
 * The DevTools protocol of a `wrangler dev` started with INSPECTOR=on (bench/lib/wrangler-dev.ts): one
 * session to its Worker's isolate, and the CPU profile it answers (bench/profile-http.ts,
 * bench/profile-stages.ts).
 */

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** One DevTools session: send(method, params) answers the result of that command. */
export async function devtools(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as { webSocketDebuggerUrl: string }[];
  // wrangler's inspector proxy wants an Origin of localhost from a client that sends a User-Agent
  // (undici's init takes headers).
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl, {
    headers: { origin: "http://localhost" },
  } as unknown as string[]);
  await new Promise(
    (ok, fail) => (
      (socket.onopen = ok),
      (socket.onerror = (event) => fail(new Error(`DevTools socket: ${(event as ErrorEvent).message}`)))
    ),
  );
  let next = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  };
  return {
    send: <T>(method: string, params: object = {}) =>
      new Promise<T>((ok) => {
        const id = ++next;
        waiting.set(id, ok as (result: unknown) => void);
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}
