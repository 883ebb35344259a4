import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface HttpApi {
  url: string;
  /** Requests seen, by path (without query). */
  hits: Map<string, number>;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(value));
};

/** A small HTTP API on 127.0.0.1 with the endpoints the adapter tests need. */
export async function startHttpApi(): Promise<HttpApi> {
  const hits = new Map<string, number>();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = url.pathname;
    const n = (hits.get(path) ?? 0) + 1;
    hits.set(path, n);
    const body = await readBody(req);
    const q = (name: string) => url.searchParams.get(name);
    if (path.startsWith("/echo")) {
      return json(res, 200, {
        method: req.method,
        path: req.url?.split("?")[0],
        query: [...url.searchParams],
        headers: req.headers,
        body,
      });
    }
    if (path === "/weather") {
      // A weather API: ?q=Mars answers the temperature as text (a wrong shape), ?q=Atlantis without one.
      const city = q("q") ?? "Oslo";
      const main = city === "Atlantis" ? {} : { temp: city === "Mars" ? "very cold" : 4.5, humidity: 80 };
      return json(res, 200, { name: city, main, wind: { speed: 3.1 } });
    }
    if (path === "/slow") {
      const timer = setTimeout(() => json(res, 200, { slow: true }), Number(q("ms") ?? 1000));
      res.on("close", () => clearTimeout(timer));
      return;
    }
    if (path === "/fail") {
      res.writeHead(Number(q("status") ?? 500), { "content-type": "text/plain" });
      return res.end(
        `upstream exploded; you sent ${req.headers.authorization ?? "nothing"}\n`.repeat(Number(q("repeat") ?? 1)),
      );
    }
    if (path === "/leak") {
      // Echoes the x-upstream-cred header at a chosen place of the body, as it is or encoded:
      // ?at=<characters of padding before it> &pad=<padding character> &form=raw|hex|HEX|pct|PCT &status= &type=
      const cred = String(req.headers["x-upstream-cred"] ?? "");
      const bytes = Buffer.from(cred, "utf8");
      const pct = [...bytes].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
      const forms: Record<string, string> = {
        raw: cred,
        hex: bytes.toString("hex"),
        HEX: bytes.toString("hex").toUpperCase(),
        pct,
        PCT: pct.toUpperCase(),
      };
      res.writeHead(Number(q("status") ?? 500), { "content-type": q("type") ?? "text/plain" });
      return res.end(
        `${(q("pad") ?? ".").repeat(Number(q("at") ?? 0))}${forms[q("form") ?? "raw"]} and more text after it`,
      );
    }
    if (path.startsWith("/limited")) {
      // Fails with 429 (or ?status) + Retry-After until the ?after-th request of this path.
      if (n < Number(q("after") ?? 2)) {
        res.writeHead(Number(q("status") ?? 429), { "retry-after": q("retry") ?? "1", "content-type": "text/plain" });
        return res.end("slow down");
      }
      return json(res, 200, { ok: true, attempt: n });
    }
    if (path === "/redirect") {
      res.writeHead(Number(q("status") ?? 302), { location: q("to") ?? "/echo" });
      return res.end();
    }
    if (path === "/text") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" });
      return res.end("plain text ✓");
    }
    if (path === "/big") {
      res.writeHead(200, { "content-type": q("type") ?? "application/json" });
      return res.end(JSON.stringify({ data: "x".repeat(Number(q("size") ?? 10_000)) }));
    }
    if (path === "/image") {
      res.writeHead(200, { "content-type": "image/png" });
      return res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    }
    if (path === "/binary") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      return res.end(Buffer.alloc(10));
    }
    if (path === "/truncated") {
      // Promises more bytes than it sends, then drops the connection mid-body.
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"partial": "');
      setTimeout(() => res.destroy(), 20);
      return;
    }
    if (path === "/empty") {
      res.writeHead(204);
      return res.end();
    }
    json(res, 404, { error: "not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
