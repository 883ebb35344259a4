import { toolError } from "./errors";
import { classifyIpLiteral } from "./ip";

export interface EgressPolicy {
  /**
   * Where tools may send requests over https. Each entry is an origin ("https://api.example.com:8443":
   * that scheme, host and port only) or a host on the default https port (443): exact
   * ("api.example.com"), wildcard ("*.example.com": any subdomain, not the apex) or "*" (any public
   * host). IP literals in internal ranges stay refused whatever this says.
   */
  allowHosts: readonly string[];
  /**
   * Local development only: loopback hosts reachable over plain http and exempt from the internal
   * range check. A host entry ("127.0.0.1", "localhost") allows its default ports (80 for http, 443
   * for https); an origin entry ("http://127.0.0.1:9001") that origin. A plain http origin in
   * allowHosts needs its host here. Never set in production.
   */
  allowHttpHosts?: readonly string[];
  /** Redirect hops followed before giving up. Default 5. */
  maxRedirects?: number;
}

export type EgressCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** One allow-list entry, read: a host pattern, and for an origin its scheme and port ("" = the scheme's default). */
export interface EgressEntry {
  /** Canonical host, "*.suffix" or "*". */
  host: string;
  /** "https:" / "http:" for an origin; undefined for a host entry. */
  scheme?: "http:" | "https:";
  port?: string;
}

const LOCAL_NAMES = /(^|\.)(localhost|localdomain)$/;
const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };
const ORIGIN = /^([a-z][a-z0-9+.-]*):\/\/(\[[^\]]*\]|[^/:?#]*)(?::([^/?#]*))?(\/?)$/;

/** A host as WHATWG URL parsing writes it, so "127.1", "0x7f.1" and "::1" compare equal to their canonical forms. */
function canonicalHost(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed === "*") return trimmed;
  if (trimmed.startsWith("*.")) return `*.${canonicalHost(trimmed.slice(2))}`;
  const literal = trimmed.includes(":") && !trimmed.startsWith("[") ? `[${trimmed}]` : trimmed;
  try {
    return stripDot(new URL(`http://${literal}/`).hostname);
  } catch {
    return stripDot(trimmed);
  }
}

const stripDot = (host: string) => (host.endsWith(".") ? host.slice(0, -1) : host);

/**
 * An allow-list entry read as an origin ("https://api.example.com:8443", "http://[::1]:9001") or a
 * host ("api.example.com", "*.example.com", "*", "::1"), or why it is neither (a message for config
 * errors). A host written with a port is refused: whether it meant https or http is not said.
 */
export function parseEgressEntry(entry: string): EgressEntry | string {
  const text = entry.trim().toLowerCase();
  if (text === "") return "must not be empty";
  if (text.includes("://")) {
    const match = ORIGIN.exec(text);
    if (!match) return `"${entry}" is not an origin: write scheme://host[:port], without a path, query or credentials`;
    const [, scheme, host = "", port = ""] = match;
    if (scheme !== "http" && scheme !== "https") return `"${entry}": only http and https origins can be allowed`;
    if (host.includes("@")) return `"${entry}": an origin holds no credentials`;
    if (host === "") return `"${entry}" has no host`;
    if (port !== "" && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65_535))
      return `"${entry}": the port must be a number from 1 to 65535`;
    const protocol = `${scheme}:` as "http:" | "https:";
    const canonical = host.startsWith("[") ? canonicalHost(host.slice(1, -1)) : canonicalHost(host);
    const number = port === "" ? "" : String(Number(port));
    // As URL writes it: "" for the scheme's default port.
    return { host: canonical, scheme: protocol, port: number === DEFAULT_PORTS[protocol] ? "" : number };
  }
  const colons = text.split(":").length - 1;
  if (colons === 1 || (text.startsWith("[") && text.includes("]:"))) {
    return (
      `"${entry}" names a port: write the origin with its scheme, e.g. "https://${text}" ` +
      `(a host entry means https on port 443)`
    );
  }
  if (/[/?#@\s]/.test(text)) return `"${entry}" is not a host name or an origin`;
  return { host: canonicalHost(text.startsWith("[") ? text.slice(1, -1) : text) };
}

function hostMatches(pattern: string, host: string): boolean {
  return pattern === "*" || pattern === host || (pattern.startsWith("*.") && host.endsWith(pattern.slice(1)));
}

/** Does an entry allow this URL? A host entry allows the default port of https, or of http too when `dev` says so. */
function allows(entry: EgressEntry, url: URL, host: string, dev: boolean): boolean {
  if (!hostMatches(entry.host, host)) return false;
  if (entry.scheme === undefined) return url.port === "" && (url.protocol === "https:" || dev);
  return entry.scheme === url.protocol && entry.port === url.port;
}

interface PreparedPolicy {
  allow: EgressEntry[];
  /** allowHttpHosts: their hosts are exempt from the internal-range check and may use plain http. */
  dev: EgressEntry[];
}

const read = (entries: readonly string[]) =>
  entries.map(parseEgressEntry).filter((e): e is EgressEntry => typeof e !== "string");

/** The read allow-lists of a policy, computed once per policy object. Entries that do not read never match. */
const prepared = new WeakMap<EgressPolicy, PreparedPolicy>();
function listsOf(policy: EgressPolicy): PreparedPolicy {
  let lists = prepared.get(policy);
  if (!lists) {
    const dev = read(policy.allowHttpHosts ?? []).filter((entry) => !entry.host.includes("*"));
    lists = { allow: read(policy.allowHosts), dev };
    prepared.set(policy, lists);
  }
  return lists;
}

/** A URL for a message: whole or not at all (a cut could end inside a secret that masking then misses). */
function shownUrl(input: unknown): string {
  const text = String(input);
  return text.length <= 200 ? JSON.stringify(text) : `(${text.length} characters)`;
}

/**
 * May a request go to this URL? Pure and synchronous, run before every fetch and every redirect
 * hop. Matches origins: scheme, host and port. Workers cannot resolve DNS before fetching, so a
 * public name that resolves to an internal address is not caught here; the allow-list is the
 * defence against that.
 */
export function checkEgress(input: string | URL, policy: EgressPolicy): EgressCheck {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    return { ok: false, reason: `not a valid absolute URL: ${shownUrl(input)}` };
  }
  const host = stripDot(url.hostname);
  const { allow, dev } = listsOf(policy);
  const isDev = dev.some((entry) => entry.host === host);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isDev)) {
    return { ok: false, reason: `${url.protocol.slice(0, -1)} is not allowed for ${host || "this URL"} (https only)` };
  }
  if (url.username || url.password) return { ok: false, reason: "credentials in the URL are not allowed" };
  if (!isDev) {
    const internal = classifyIpLiteral(host);
    if (internal) return { ok: false, reason: `${host} is a ${internal} address` };
    if (LOCAL_NAMES.test(host)) return { ok: false, reason: `${host} is a local name` };
  }
  if (allow.some((entry) => allows(entry, url, host, isDev)) || dev.some((entry) => allows(entry, url, host, true)))
    return { ok: true, url };
  const origin = `${url.protocol}//${url.host}`;
  if (![...allow, ...dev].some((entry) => hostMatches(entry.host, host)))
    return { ok: false, reason: `host ${host} is not in the allow-list` };
  return {
    ok: false,
    reason:
      `origin ${origin} is not in the allow-list ` +
      `(only other ports or schemes of ${host} are; a host entry means its default port)`,
  };
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

async function outgoing(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
): Promise<{ url: string; req: Outgoing }> {
  if (input instanceof Request) {
    const req = new Request(input, init);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
    return {
      url: req.url,
      req: { method: req.method, headers: new Headers(req.headers), body, init: { ...init, signal: req.signal } },
    };
  }
  let body = init?.body ?? undefined;
  if (body !== undefined && typeof body !== "string" && !(body instanceof ArrayBuffer))
    body = await new Response(body).arrayBuffer();
  const method = (init?.method ?? "GET").toUpperCase();
  return {
    url: String(input),
    req: {
      method,
      headers: new Headers(init?.headers),
      body: body as ArrayBuffer | string | undefined,
      init: init ?? {},
    },
  };
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
      const response = await baseFetch(check.url.href, {
        ...req.init,
        method: req.method,
        headers: req.headers,
        body: req.body ?? null,
        redirect: "manual",
      });
      const location = response.headers.get("location");
      if (!REDIRECTS.has(response.status) || location === null || mode === "manual") return response;
      if (mode === "error")
        throw toolError("upstream_error", `Unexpected redirect (${response.status}) from ${check.url.host}`, {
          retryable: false,
        });
      if (hop >= maxRedirects)
        throw toolError("upstream_error", `Too many redirects (more than ${maxRedirects})`, { retryable: false });
      await response.body?.cancel();
      const next = new URL(location, check.url);
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && req.method === "POST")) {
        if (req.method !== "HEAD") req.method = "GET";
        req.body = undefined;
        for (const name of [
          "content-type",
          "content-length",
          "content-encoding",
          "content-language",
          "content-location",
        ])
          req.headers.delete(name);
      }
      if (next.origin !== check.url.origin) {
        // A credential may sit in any header (auth "header" type); only plain content headers cross origins.
        const names: string[] = [];
        req.headers.forEach((_value, name) => {
          names.push(name);
        });
        for (const name of names) if (!CROSS_ORIGIN_HEADERS.has(name)) req.headers.delete(name);
      }
      url = next.href;
    }
  };
  return egressFetch as typeof fetch;
}
