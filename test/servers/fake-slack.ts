import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Slack's OAuth v2 user-token flow and one of its APIs on 127.0.0.1, answering as Slack documents them
 * (docs.slack.dev: oauth.v2.access, token rotation): the authorize page sends the browser straight back
 * with a code (the person is `?login=`); oauth.v2.access answers HTTP 200 with `ok` and, for a code, the
 * user's token inside `authed_user` (with rotation: refresh_token, expires_in), or, for a refresh, at the
 * top level; users.profile.get answers the profile of whoever's token it gets. GET /seen lists the
 * tokens the API was sent.
 */
export async function startFakeSlack(client: { id: string; secret: string }) {
  const codes = new Map<string, { login: string; challenge: string; redirectUri: string; scope: string }>();
  const access = new Map<string, string>(); // access token → login
  const refresh = new Map<string, { login: string; scope: string }>();
  const seen: string[] = [];
  const token = (prefix: string) => `${prefix}-${randomBytes(12).toString("hex")}`;
  const issue = (login: string, scope: string) => {
    const accessToken = token("xoxe.xoxp-1");
    const refreshToken = token("xoxe-1");
    access.set(accessToken, login);
    refresh.set(refreshToken, { login, scope });
    return { access_token: accessToken, refresh_token: refreshToken, expires_in: 43_200, scope, token_type: "user" };
  };
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/oauth/v2/authorize") {
      const q = url.searchParams;
      const code = token("code");
      codes.set(code, {
        login: q.get("login") ?? "",
        challenge: q.get("code_challenge") ?? "",
        redirectUri: q.get("redirect_uri") ?? "",
        scope: q.get("user_scope") ?? "",
      });
      const back = new URL(q.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.get("state") ?? "");
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === "/api/oauth.v2.access") {
      let body = "";
      for await (const chunk of req) body += chunk;
      const form = new URLSearchParams(body);
      // HTTP Basic, each part form-urlencoded first (RFC 6749 2.3.1), as oauth4webapi sends it.
      const basic = Buffer.from((req.headers.authorization ?? "").replace(/^Basic /, ""), "base64").toString();
      const [id = "", secret = ""] = basic.split(":").map((part) => decodeURIComponent(part.replace(/\+/g, " ")));
      if (id !== client.id || secret !== client.secret) return send(200, { ok: false, error: "invalid_client" });
      if (form.get("grant_type") === "refresh_token") {
        const held = refresh.get(form.get("refresh_token") ?? "");
        if (!held) return send(200, { ok: false, error: "invalid_refresh_token" });
        refresh.delete(form.get("refresh_token")!); // rotation: each refresh token is used once
        return send(200, { ok: true, app_id: "A1", ...issue(held.login, held.scope) });
      }
      const held = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      if (!held || held.challenge !== challenge || held.redirectUri !== form.get("redirect_uri"))
        return send(200, { ok: false, error: "invalid_code" });
      // A user-scopes-only install: no bot token at the top level, the user's inside authed_user.
      const { scope, ...user } = issue(held.login, held.scope);
      return send(200, {
        ok: true,
        app_id: "A1",
        authed_user: { id: `U-${held.login}`, scope, ...user },
        team: { id: "T1", name: "Test" },
        enterprise: null,
        is_enterprise_install: false,
      });
    }
    if (url.pathname === "/api/users.profile.get") {
      const bearer = (req.headers.authorization ?? "").replace(/^Bearer /, "");
      seen.push(bearer);
      const login = access.get(bearer);
      if (!login) return send(200, { ok: false, error: "invalid_auth" });
      return send(200, { ok: true, profile: { real_name: login, display_name: login } });
    }
    if (url.pathname === "/seen") return send(200, { seen });
    send(404, { ok: false, error: "unknown_method" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
