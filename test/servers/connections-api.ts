import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An HTTP API on 127.0.0.1 that acts for whoever's bearer token it gets, as GitHub's or Google's do: it
 * asks the provider's userinfo endpoint whose token it is, and answers that user's items. A token the
 * provider does not know (expired, revoked, another's forged) answers 401. GET /requests counts the
 * requests /items had; GET /seen lists the Authorization headers /items received (for leak checks).
 * POST /refuse (body: a bearer token) makes the API refuse that token from then on, as an API does
 * for a token it revoked itself while the provider still honours the grant's refresh token.
 */
export async function startConnectionsApi(userinfoUrl: string) {
  let requests = 0;
  const seen: string[] = [];
  const refused = new Set<string>();
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    if (path === "/requests") return send(200, { requests });
    if (path === "/seen") return send(200, { seen });
    if (path === "/refuse" && req.method === "POST") {
      let token = "";
      for await (const chunk of req) token += chunk;
      refused.add(`Bearer ${token}`);
      return send(200, { refused: refused.size });
    }
    if (path !== "/items") return send(404, { error: "not found" });
    requests++;
    const authorization = req.headers.authorization ?? "";
    seen.push(authorization);
    if (refused.has(authorization)) return send(401, { error: "invalid_token" });
    const info = await fetch(userinfoUrl, { headers: { authorization } });
    if (!info.ok) return send(401, { error: "invalid_token", echo: authorization });
    const { sub } = (await info.json()) as { sub: string };
    send(200, { owner: sub, items: [`${sub}'s first item`, `${sub}'s second item`] });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
