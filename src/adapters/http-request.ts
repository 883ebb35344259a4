import { toolError } from "../errors";
import { isPlainObject } from "../json";
import type { AuthDeclaration, HttpTool } from "./declarations";

const PLACEHOLDER = /\{([^{}\s]+)\}/g;

/** Argument names a template refers to. */
export function placeholders(template: string): string[] {
  if (!template.includes("{")) return []; // most literal values (headers, fixed query values)
  const names: string[] = [];
  // exec over the shared /g pattern (reset first): matchAll copied the pattern and built an iterator per template.
  PLACEHOLDER.lastIndex = 0;
  for (let match = PLACEHOLDER.exec(template); match; match = PLACEHOLDER.exec(template))
    names.push(match[1] as string);
  return names;
}

const asText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

function fill(template: string, args: Record<string, unknown>, encode: (s: string) => string, where: string): string {
  return template.replace(PLACEHOLDER, (_m, name: string) => {
    const value = args[name];
    if (value === undefined || value === null) {
      throw toolError("invalid_arguments", `Argument "${name}" is required (${where})`, {
        issues: [{ path: name, message: "is required" }],
      });
    }
    return encode(asText(value));
  });
}

/** Percent-encode a path parameter; "." and ".." would walk the path (URL parsers resolve them even encoded). */
function encodePathSegment(value: string): string {
  if (value === "." || value === "..") {
    throw toolError("invalid_arguments", `A path parameter may not be "${value}"`, {
      issues: [{ path: "", message: `may not be "${value}"` }],
    });
  }
  return encodeURIComponent(value);
}

/** A template that is exactly one placeholder maps that argument as-is (arrays repeat, absence omits). */
const soleName = (template: string) => /^\{([^{}\s]+)\}$/.exec(template)?.[1];

function secret(secrets: Readonly<Record<string, string>>, name: string, label: string): string {
  const value = secrets[name];
  if (typeof value !== "string" || value === "") {
    throw toolError("internal", `${label}: secret "${name}" is not configured`, { retryable: false });
  }
  return value;
}

/** Add the configured credential; `label` names the adapter in the error when its secret is missing. */
export function applyAuth(
  auth: AuthDeclaration,
  url: URL,
  headers: Headers,
  secrets: Readonly<Record<string, string>>,
  label: string,
): void {
  switch (auth.type) {
    case "bearer":
      headers.set("authorization", `Bearer ${secret(secrets, auth.secret, label)}`);
      return;
    case "header":
      headers.set(auth.name, `${auth.prefix ?? ""}${secret(secrets, auth.secret, label)}`);
      return;
    case "basic": {
      const user = auth.usernameSecret ? secret(secrets, auth.usernameSecret, label) : (auth.username ?? "");
      const bytes = new TextEncoder().encode(`${user}:${secret(secrets, auth.passwordSecret, label)}`);
      headers.set("authorization", `Basic ${btoa(String.fromCharCode(...bytes))}`);
      return;
    }
    case "query":
      url.searchParams.set(auth.name, secret(secrets, auth.secret, label));
      return;
  }
}

/** Argument names consumed by the URL, query, headers and body mapping of a declaration. */
export function mappedNames(decl: HttpTool): Set<string> {
  const names = new Set(placeholders(decl.url));
  for (const t of Object.values(decl.query ?? {})) for (const n of placeholders(t)) names.add(n);
  for (const t of Object.values(decl.headers ?? {})) for (const n of placeholders(t)) names.add(n);
  if (decl.body) names.add(decl.body.arg);
  return names;
}

function restMode(decl: HttpTool): "query" | "body" | "drop" {
  return decl.rest ?? (decl.method === "GET" || decl.method === "HEAD" || decl.method === "DELETE" ? "query" : "body");
}

function addQuery(url: URL, name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) for (const item of value) url.searchParams.append(name, asText(item));
  else url.searchParams.append(name, asText(value));
}

/**
 * The request for one call: URL with encoded path parameters and query, headers, body, credential.
 * `mapped` is mappedNames(decl), computed once per tool rather than per call. `userToken` is the
 * calling user's token of the tool's connection, sent as the bearer (after everything else).
 */
export function buildRequest(
  decl: HttpTool,
  mapped: ReadonlySet<string>,
  args: unknown,
  secrets: Readonly<Record<string, string>>,
  userToken?: string,
): { url: string; init: RequestInit } {
  const values = isPlainObject(args) ? args : {};
  const url = new URL(fill(decl.url, values, encodePathSegment, "URL path"));
  for (const [name, template] of Object.entries(decl.query ?? {})) {
    const sole = soleName(template);
    if (sole !== undefined) addQuery(url, name, values[sole]);
    else
      url.searchParams.append(
        name,
        fill(template, values, (s) => s, `query ${name}`),
      );
  }
  const headers = new Headers({ accept: "application/json, text/*;q=0.9, */*;q=0.5" });
  for (const [name, template] of Object.entries(decl.headers ?? {})) {
    const sole = soleName(template);
    if (sole !== undefined && (values[sole] === undefined || values[sole] === null)) continue;
    headers.set(
      name,
      fill(template, values, (s) => s.replace(/[\r\n]/g, " "), `header ${name}`),
    );
  }
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) if (!mapped.has(key)) rest[key] = value;
  const mode = restMode(decl);
  if (mode === "query") for (const [key, value] of Object.entries(rest)) addQuery(url, key, value);
  let body: string | undefined;
  if (decl.body) body = values[decl.body.arg] === undefined ? undefined : JSON.stringify(values[decl.body.arg]);
  else if (mode === "body") body = JSON.stringify(rest);
  if (body !== undefined) headers.set("content-type", "application/json");
  if (decl.auth) applyAuth(decl.auth, url, headers, secrets, `HTTP tool "${decl.name}"`);
  if (userToken !== undefined) headers.set("authorization", `Bearer ${userToken}`);
  return {
    url: url.href,
    init: body === undefined ? { method: decl.method, headers } : { method: decl.method, headers, body },
  };
}
