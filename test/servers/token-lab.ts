/**
 * The token lab: issuers of signed tokens on 127.0.0.1, for the identity tests (test/servers/worker-setup.ts
 * starts it; inject("tokenLab")). Real JWKS and real signatures (jose), with what a real provider never
 * does on demand: rotated keys, forged signatures, unsigned tokens, HS256 signed with the public key,
 * key sets that are down, not JSON, too large or redirected. Everything is per named set or issuer, so
 * tests never share state. JSON in and out.
 *
 * Key sets (one signing key is made on first use, RS256 unless told):
 *   GET  /sets/<set>/jwks                    the published keys (counted; answered as `serve` says)
 *   GET  /sets/<set>/fetches                 { count }: how often the set was fetched
 *   POST /sets/<set>/rotate { alg?, keep? }  a new current key ({ kid }); the old ones stay published if keep
 *   POST /sets/<set>/serve { mode }          "ok" | "down" (503) | "not-json" | "huge" (> 64 KiB) | "redirect"
 *   POST /sets/<set>/sign { claims, header?, key?, mode? } → { token }   (a header field null: left out)
 *        key: "current" (default) | "forged" (an unpublished key, under the current key's kid)
 *        mode: "signed" (default) | "none" (alg none, no signature) | "hs256-public" (HMAC keyed with the
 *        current public key's JWK, the classic algorithm confusion)
 * A scripted OpenID provider per issuer name (its keys are the set of the same name):
 *   GET  /issuers/<name>/.well-known/openid-configuration
 *   GET  /issuers/<name>/authorize           records the request; 302 to redirect_uri with code, state, iss
 *   POST /issuers/<name>/token               the ID token for the code: iss, aud (client_id), sub, nonce (the
 *                                            authorization's), iat, exp, then the script's claims over them
 *   GET  /issuers/<name>/userinfo            the script's userinfo, else { sub }
 *   POST /issuers/<name>/script { sub?, claims?, header?, key?, mode?, userinfo?, authorize?, token? }
 *        what the next answers hold (a claim set to null is left out); authorize: { error?, iss? };
 *        token: { status, body } answers that instead of an ID token
 *   GET  /issuers/<name>/authorizations      every authorization request's query, in order
 * Cloudflare Access with the lab's origin as its team domain (its keys: the set "access"):
 *   GET  /cdn-cgi/access/certs               the set "access"'s JWKS
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT, UnsecuredJWT } from "jose";

interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

interface KeySetState {
  keys: SigningKey[];
  fetches: number;
  mode: "ok" | "down" | "not-json" | "huge" | "redirect";
}

interface Script {
  sub?: string;
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  key?: "current" | "forged";
  mode?: "signed" | "none" | "hs256-public";
  userinfo?: Record<string, unknown>;
  authorize?: { error?: string; iss?: string };
  token?: { status: number; body: unknown };
}

interface SignRequest {
  claims: JWTPayload;
  header?: Record<string, unknown>;
  key?: "current" | "forged";
  mode?: "signed" | "none" | "hs256-public";
}

let kids = 0;

async function newKey(alg = "RS256"): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `k${++kids}-${alg.toLowerCase()}`;
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

export async function startTokenLab() {
  // Promises, so requests that first name a set at the same time get the same one.
  const sets = new Map<string, Promise<KeySetState>>();
  const scripts = new Map<string, Script>();
  const authorizations = new Map<string, Record<string, string>[]>();
  const codes = new Map<string, { issuer: string; params: Record<string, string> }>();
  let origin = "";

  const set = (name: string): Promise<KeySetState> => {
    let state = sets.get(name);
    if (!state) {
      state = newKey().then((key) => ({ keys: [key], fetches: 0, mode: "ok" as const }));
      sets.set(name, state);
    }
    return state;
  };

  const sign = async (name: string, request: SignRequest): Promise<string> => {
    const state = await set(name);
    const current = state.keys[state.keys.length - 1]!;
    if (request.mode === "none") return new UnsecuredJWT(request.claims).encode();
    if (request.mode === "hs256-public") {
      const secret = new TextEncoder().encode(JSON.stringify(current.jwk));
      return new SignJWT(request.claims)
        .setProtectedHeader({ alg: "HS256", kid: current.kid, ...request.header })
        .sign(secret);
    }
    const key = request.key === "forged" ? await newKey(current.alg) : current;
    // A header field set to null is left out (a token without kid).
    const header = Object.entries({ alg: key.alg, kid: current.kid, ...request.header }).filter(([, v]) => v !== null);
    return new SignJWT(request.claims)
      .setProtectedHeader(Object.fromEntries(header) as { alg: string })
      .sign(key.privateKey);
  };

  const issuerUrl = (name: string) => `${origin}/issuers/${name}`;

  const idToken = async (name: string, params: Record<string, string>): Promise<string> => {
    const script = scripts.get(name) ?? {};
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      iss: issuerUrl(name),
      aud: params.client_id,
      sub: script.sub ?? "alice",
      nonce: params.nonce,
      iat: now,
      exp: now + 300,
      ...script.claims,
    };
    for (const [claim, value] of Object.entries(claims)) if (value === null) delete claims[claim];
    return sign(name, {
      claims: claims as JWTPayload,
      ...(script.header ? { header: script.header } : {}),
      ...(script.key ? { key: script.key } : {}),
      ...(script.mode ? { mode: script.mode } : {}),
    });
  };

  const serveJwks = async (res: ServerResponse, name: string) => {
    const state = await set(name);
    state.fetches++;
    if (state.mode === "down") return send(res, 503, { error: "down" });
    if (state.mode === "not-json") return text(res, 200, "<html>maintenance</html>");
    if (state.mode === "redirect") {
      res.writeHead(302, { location: `${origin}/sets/${name}-elsewhere/jwks` });
      return res.end();
    }
    const keys = state.keys.map((key) => key.jwk);
    if (state.mode === "huge") return send(res, 200, { keys, padding: "x".repeat(70 * 1024) });
    return send(res, 200, { keys });
  };

  const issuerRoute = async (req: IncomingMessage, res: ServerResponse, name: string, rest: string, url: URL) => {
    const issuer = issuerUrl(name);
    if (rest === ".well-known/openid-configuration")
      return send(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        userinfo_endpoint: `${issuer}/userinfo`,
        jwks_uri: `${origin}/sets/${name}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256", "ES256"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        scopes_supported: ["openid", "email", "profile", "groups"],
        authorization_response_iss_parameter_supported: true,
      });
    if (rest === "authorize") {
      const params = Object.fromEntries(url.searchParams);
      authorizations.set(name, [...(authorizations.get(name) ?? []), params]);
      const back = new URL(params.redirect_uri ?? "");
      const script = scripts.get(name) ?? {};
      if (params.state !== undefined) back.searchParams.set("state", params.state);
      back.searchParams.set("iss", script.authorize?.iss ?? issuer);
      if (script.authorize?.error) back.searchParams.set("error", script.authorize.error);
      else {
        const code = `code-${crypto.randomUUID()}`;
        codes.set(code, { issuer: name, params });
        back.searchParams.set("code", code);
      }
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (rest === "token" && req.method === "POST") {
      const form = new URLSearchParams(await body(req));
      const script = scripts.get(name) ?? {};
      if (script.token) return send(res, script.token.status, script.token.body);
      const grant = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      if (!grant || grant.issuer !== name) return send(res, 400, { error: "invalid_grant" });
      return send(res, 200, {
        access_token: `at-${crypto.randomUUID()}`,
        token_type: "Bearer",
        expires_in: 300,
        id_token: await idToken(name, grant.params),
      });
    }
    if (rest === "userinfo") {
      const script = scripts.get(name) ?? {};
      return send(res, 200, script.userinfo ?? { sub: script.sub ?? "alice" });
    }
    if (rest === "script" && req.method === "POST") {
      scripts.set(name, JSON.parse((await body(req)) || "{}") as Script);
      return send(res, 200, { scripted: name });
    }
    if (rest === "authorizations") return send(res, 200, authorizations.get(name) ?? []);
    return send(res, 404, { error: "not found" });
  };

  const setRoute = async (req: IncomingMessage, res: ServerResponse, name: string, rest: string) => {
    if (rest === "jwks") return serveJwks(res, name);
    if (rest === "fetches") return send(res, 200, { count: (await set(name)).fetches });
    if (req.method !== "POST") return send(res, 404, { error: "not found" });
    const input = JSON.parse((await body(req)) || "{}") as Record<string, unknown>;
    const state = await set(name);
    if (rest === "rotate") {
      const key = await newKey(typeof input.alg === "string" ? input.alg : state.keys[0]!.alg);
      state.keys = input.keep ? [...state.keys, key] : [key];
      return send(res, 200, { kid: key.kid });
    }
    if (rest === "serve") {
      state.mode = input.mode as KeySetState["mode"];
      return send(res, 200, { mode: state.mode });
    }
    if (rest === "sign") return send(res, 200, { token: await sign(name, input as unknown as SignRequest) });
    return send(res, 404, { error: "not found" });
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const [, kind, name = "", ...rest] = url.pathname.split("/");
    const route =
      url.pathname === "/cdn-cgi/access/certs"
        ? serveJwks(res, "access")
        : kind === "sets"
          ? setRoute(req, res, name, rest.join("/"))
          : kind === "issuers"
            ? issuerRoute(req, res, name, rest.join("/"), url)
            : Promise.resolve(send(res, 404, { error: "not found" }));
    route.catch((error: unknown) => send(res, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function send(res: ServerResponse, status: number, value: unknown): void {
  text(res, status, JSON.stringify(value), "application/json");
}

function text(res: ServerResponse, status: number, value: string, type = "text/html"): void {
  if (res.headersSent) return;
  res.writeHead(status, { "content-type": type });
  res.end(value);
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}
