import { toolError } from "./errors";
import { classifyIpLiteral } from "./ip";

export interface EgressPolicy {
  /**
   * Hosts tools may reach over https: exact names ("api.example.com"), wildcards ("*.example.com":
   * any subdomain, not the apex) or "*" (any public host). IP literals in internal ranges stay
   * refused whatever this says.
   */
  allowHosts: readonly string[];
  /**
   * Hosts allowed for local development: reachable over plain http and exempt from the internal
   * range check (e.g. ["127.0.0.1", "localhost"]). Never set in production.
   */
  allowHttpHosts?: readonly string[];
  /** Redirect hops followed before giving up. Default 5. */
  maxRedirects?: number;
}

export type EgressCheck = { ok: true; url: URL } | { ok: false; reason: string };

const LOCAL_NAMES = /(^|\.)(localhost|localdomain)$/;

/** A host as WHATWG URL parsing writes it, so "127.1", "0x7f.1" and "::1" compare equal to their canonical forms. */
function canonicalHost(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith("*.")) return `*.${canonicalHost(trimmed.slice(2))}`;
  const literal = trimmed.includes(":") && !trimmed.startsWith("[") ? `[${trimmed}]` : trimmed;
  try {
    return stripDot(new URL(`http://${literal}/`).hostname);
  } catch {
    return stripDot(trimmed);
  }
}

const stripDot = (host: string) => (host.endsWith(".") ? host.slice(0, -1) : host);

function matches(host: string, entries: readonly string[]): boolean {
  for (const entry of entries) {
    if (entry === "*" || entry === host) return true;
    if (entry.startsWith("*.") && host.endsWith(entry.slice(1))) return true;
  }
  return false;
}

/** Canonical allow-lists of a policy, computed once per policy object. */
const prepared = new WeakMap<EgressPolicy, { allow: string[]; dev: string[] }>();
function listsOf(policy: EgressPolicy) {
  let lists = prepared.get(policy);
  if (!lists) {
    const dev = (policy.allowHttpHosts ?? []).map(canonicalHost);
    lists = { allow: [...policy.allowHosts.map(canonicalHost), ...dev], dev };
    prepared.set(policy, lists);
  }
  return lists;
}

/**
 * May a request go to this URL? Pure and synchronous, run before every fetch and every redirect
 * hop. Workers cannot resolve DNS before fetching, so a public name that resolves to an internal
 * address is not caught here; the allow-list is the defence against that.
 */
export function checkEgress(input: string | URL, policy: EgressPolicy): EgressCheck {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    return { ok: false, reason: `not a valid absolute URL: ${JSON.stringify(String(input).slice(0, 200))}` };
  }
  const host = stripDot(url.hostname);
  const { allow, dev } = listsOf(policy);
  const isDev = matches(host, dev);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isDev)) {
    return { ok: false, reason: `${url.protocol.slice(0, -1)} is not allowed for ${host || "this URL"} (https only)` };
  }
  if (url.username || url.password) return { ok: false, reason: "credentials in the URL are not allowed" };
  if (!isDev) {
    const internal = classifyIpLiteral(host);
    if (internal) return { ok: false, reason: `${host} is a ${internal} address` };
    if (LOCAL_NAMES.test(host)) return { ok: false, reason: `${host} is a local name` };
  }
  if (!matches(host, allow)) return { ok: false, reason: `host ${host} is not in the allow-list` };
  return { ok: true, url };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers kept when a redirect leaves the origin. */
const CROSS_ORIGIN_HEADERS = new Set(["accept", "accept-language", "content-type", "content-language", "user-agent"]);

interface Outgoing {
  method: string;
  headers: Headers;
  body: ArrayBuffer | string | undefined;
  init: RequestInit;
}

async function outgoing(input: RequestInfo | URL, init: RequestInit | undefined): Promise<{ url: string; req: Outgoing }> {
  if (input instanceof Request) {
    const req = new Request(input, init);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
    return { url: req.url, req: { method: req.method, headers: new Headers(req.headers), body, init: { ...init, signal: req.signal } } };
  }
  let body = init?.body ?? undefined;
  if (body !== undefined && typeof body !== "string" && !(body instanceof ArrayBuffer)) body = await new Response(body).arrayBuffer();
  const method = (init?.method ?? "GET").toUpperCase();
  return { url: String(input), req: { method, headers: new Headers(init?.headers), body: body as ArrayBuffer | string | undefined, init: init ?? {} } };
}

/**
 * fetch bound to an egress policy: every URL is checked before any request, redirects are
 * followed by hand and re-checked at every hop (bounded), and all but plain content headers are
 * dropped when a redirect leaves the origin. A refused request throws a `denied` ToolError that a model can read.
 */
export function createEgressFetch(policy: EgressPolicy, baseFetch: typeof fetch = globalThis.fetch): typeof fetch {
  const maxRedirects = policy.maxRedirects ?? 5;
  const egressFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const { url: first, req } = await outgoing(input, init);
    const mode = req.init.redirect ?? "follow";
    let url = first;
    for (let hop = 0; ; hop++) {
      const check = checkEgress(url, policy);
      if (!check.ok) throw toolError("denied", `Egress refused: ${check.reason}`, { retryable: false });
      const response = await baseFetch(check.url.href, { ...req.init, method: req.method, headers: req.headers, body: req.body ?? null, redirect: "manual" });
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null || mode === "manual") return response;
      if (mode === "error") throw toolError("upstream_error", `Unexpected redirect (${response.status}) from ${check.url.host}`, { retryable: false });
      if (hop >= maxRedirects) throw toolError("upstream_error", `Too many redirects (more than ${maxRedirects})`, { retryable: false });
      await response.body?.cancel();
      const next = new URL(location, check.url);
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && req.method === "POST")) {
        if (req.method !== "HEAD") req.method = "GET";
        req.body = undefined;
        for (const name of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) req.headers.delete(name);
      }
      if (next.origin !== check.url.origin) {
        // A credential may sit in any header (auth "header" type); only plain content headers cross origins.
        const names: string[] = [];
        req.headers.forEach((_value, name) => names.push(name));
        for (const name of names) if (!CROSS_ORIGIN_HEADERS.has(name)) req.headers.delete(name);
      }
      url = next.href;
    }
  };
  return egressFetch as typeof fetch;
}
