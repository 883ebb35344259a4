/**
 * Upstream latches for long calls: GET /hold/<id> records the arrival and answers only once the test
 * opens the latch (POST /open/<id>), so a tool can be held mid-run for as long as a test needs without
 * a timer. GET /arrivals/<id> says how many requests reached the latch (how often the tool ran).
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export async function startLatches() {
  const arrivals = new Map<string, number>();
  const open = new Set<string>();
  const waiting = new Map<string, ServerResponse[]>();
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    const [, kind, id = ""] = new URL(req.url ?? "/", "http://127.0.0.1").pathname.split("/");
    if (kind === "hold") {
      const n = (arrivals.get(id) ?? 0) + 1;
      arrivals.set(id, n);
      if (open.has(id)) return answer(res, 200, { id, n });
      waiting.set(id, [...(waiting.get(id) ?? []), res]);
      return;
    }
    if (kind === "open" && req.method === "POST") {
      open.add(id);
      for (const held of waiting.get(id) ?? [])
        if (!held.writableEnded) answer(held, 200, { id, n: arrivals.get(id) ?? 0 });
      waiting.delete(id);
      return answer(res, 200, { opened: id });
    }
    if (kind === "arrivals") return answer(res, 200, { id, n: arrivals.get(id) ?? 0 });
    answer(res, 404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
