import { env as workerEnv } from "cloudflare:workers";
import { inject } from "vitest";
import { app } from "../../fixtures/app";
import { BASE } from "./requests";

/**
 * People signing in to the console through the demo OpenID provider (scripts/idp/demo-idp.ts), driven
 * by HTTP as a browser would: toolgate's /auth/login, the provider's login and consent forms
 * (devInteractions: any password), its redirect back, toolgate's /auth/callback. Cookies are kept per
 * site in a small jar; toolgate's requests go to the app with the test's env (TOOLGATE_CONFIG, secret).
 */

export const idp = inject("idp");
/** The Worker secret's name the test tenants' identity.oidc names, and its env entry. */
export const IDP_SECRET_NAME = "DEMO_IDP_SECRET";
export const idpSecretEnv = () => ({ [IDP_SECRET_NAME]: idp.clientSecret });

/** identity.oidc for the demo provider. */
export function demoOidc(more: Record<string, unknown> = {}) {
  return {
    name: "Demo IdP",
    issuer: idp.url,
    clientId: idp.clientId,
    clientSecret: IDP_SECRET_NAME,
    scopes: ["openid", "email", "profile", "groups"],
    ...more,
  };
}

/** Cookies by name, as one browser holds them for one site (paths and expiry aside: these flows are short). */
export class Jar {
  readonly cookies = new Map<string, string>();
  /** Takes the response's Set-Cookie headers in (Max-Age=0 deletes). */
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      const name = pair.slice(0, at).trim();
      if (/max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(at + 1).trim());
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

/** One request to toolgate (the app with `env`), as the browser sends it, its cookies kept in `jar`. */
export async function toToolgate(
  url: string,
  env: Record<string, unknown>,
  jar: Jar,
  init: RequestInit = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (jar.cookies.size > 0) headers.set("cookie", jar.header());
  const request = new Request(url.startsWith("http") ? url : `${BASE}${url}`, { redirect: "manual", ...init, headers });
  const response = await app.request(request, undefined, { ...workerEnv, ...env });
  jar.take(response);
  return response;
}

/** The browser at the provider: from its authorize URL through login and consent, to toolgate's callback URL. */
export async function throughProvider(
  authorizeUrl: string,
  login: string,
  jar = new Jar(),
  provider = idp.url,
): Promise<string> {
  let url = authorizeUrl;
  for (let step = 0; step < 12; step++) {
    if (!url.startsWith(provider)) return url;
    const response = await fetch(url, { redirect: "manual", headers: { cookie: jar.header() } });
    jar.take(response);
    const location = response.headers.get("location");
    if (location) {
      url = new URL(location, url).href;
      continue;
    }
    const page = await response.text();
    if (response.status !== 200) throw new Error(`the provider answered ${response.status}: ${page.slice(0, 300)}`);
    const action = new URL(/action="([^"]+)"/.exec(page)![1]!, url).href;
    const prompt = /name="prompt" value="(\w+)"/.exec(page)![1]!;
    const form: Record<string, string> = prompt === "login" ? { prompt, login, password: "any" } : { prompt };
    const submitted = await fetch(action, {
      method: "POST",
      redirect: "manual",
      headers: { cookie: jar.header(), "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
    });
    jar.take(submitted);
    const next = submitted.headers.get("location");
    if (!next) throw new Error(`the provider's ${prompt} form answered ${submitted.status}: ${await submitted.text()}`);
    url = new URL(next, action).href;
  }
  throw new Error("the provider never sent the browser back");
}

export interface SignedIn {
  /** toolgate's cookies of this browser (the session among them). */
  jar: Jar;
  /** The callback's answer: 302 to the console, with the session cookie. */
  callback: Response;
}

/** A person signs in to toolgate (the app with `env`) through the demo provider as `login` (alice, bob). */
export async function signIn(
  login: string,
  env: Record<string, unknown>,
  options: { origin?: string; returnTo?: string } = {},
): Promise<SignedIn> {
  const origin = options.origin ?? BASE;
  const jar = new Jar();
  const query = options.returnTo ? `?return=${encodeURIComponent(options.returnTo)}` : "";
  const started = await toToolgate(`${origin}/auth/login${query}`, env, jar);
  if (started.status !== 302) throw new Error(`/auth/login answered ${started.status}: ${await started.text()}`);
  const back = await throughProvider(started.headers.get("location")!, login);
  const callback = await toToolgate(back, env, jar);
  return { jar, callback };
}

/** The headers the console sends with its session (same origin, Toolgate-Session: 1). */
export function sessionHeaders(jar: Jar, origin = BASE): Record<string, string> {
  return { cookie: jar.header(), "toolgate-session": "1", "sec-fetch-site": "same-origin", origin };
}
