import { WorkerEntrypoint } from "cloudflare:workers";
import type { Hono } from "hono";
import type { AppEnv, Bindings } from "./env";
import type { ErrorBody } from "./errors";
import { USER_HEADER, USER_TOKEN_HEADER } from "./identity/act-as";
import { markBindingContext } from "./surface";

/** What every RPC method answers: the HTTP body on success, the HTTP error otherwise (never a throw). */
export type RpcAnswer<T = Record<string, unknown>> =
  | { ok: true; status: number; value: T }
  | { ok: false; status: number; error: ErrorBody["error"] };

/**
 * The end user a call is for (the last argument of each method), sent as the HTTP API's headers: a
 * plain id (`Toolgate-User`, keys with `actAs: "header"`) or a signed user token from one of the
 * tenant's `identity.appTokens` (`Toolgate-User-Token`, keys with any `actAs`). The key's permission
 * and the user's roles apply exactly as over HTTP.
 */
export type ActingFor = { user: string } | { userToken: string };

/** The headers `as` stands for, or the refusal (400 invalid_user) of a value that is not one. */
function actingHeaders(as: unknown): { headers: Record<string, string> } | { refused: RpcAnswer } {
  if (as === undefined || as === null) return { headers: {} };
  const refuse = (message: string) => ({
    refused: { ok: false, status: 400, error: { code: "invalid_user", message } } as const,
  });
  if (typeof as !== "object" || Array.isArray(as)) return refuse("as must be { user } or { userToken }.");
  const entries = Object.entries(as as Record<string, unknown>).filter(([, value]) => value !== undefined);
  const [name, value] = entries[0] ?? [];
  if (entries.length !== 1 || (name !== "user" && name !== "userToken"))
    return refuse("as must be { user } or { userToken }: one of them, not both.");
  const header = name === "user" ? USER_HEADER : USER_TOKEN_HEADER;
  // A header's value is bytes without line breaks; one Headers would trim or refuse is not the one sent.
  if (typeof value !== "string" || !/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(value))
    return refuse(`as.${name} must be a non-empty string of visible ASCII characters (it is sent as ${header}).`);
  return { headers: { [header]: value } };
}

/**
 * The API for chat apps that are Workers themselves (a service binding, no public hop). Each method
 * sends the same request the HTTP API would get through the same app, so keys, scopes, limits,
 * records and logs are exactly those of HTTP. Made per app: the entry module exports the class made
 * for the app it serves.
 *
 *   [[services]] binding = "TOOLGATE", service = "toolgate", entrypoint = "ToolgateService"
 *   const { value } = await env.TOOLGATE.runCalls(key, "openai", completion.choices[0].message);
 *   // for one of the app's users (a key with actAs):
 *   await env.TOOLGATE.runCalls(key, "openai", message, { userToken }); // or { user: "alice@acme.example" }
 */
export function createToolgateService(app: Hono<AppEnv>) {
  /**
   * One request through the app, as the binding's (the context is marked: surface "binding"), for the
   * user `as` names; an `as` that names none is refused before anything is sent.
   */
  async function send(
    env: Bindings,
    ctx: ExecutionContext,
    key: string,
    as: unknown,
    method: string,
    path: string,
    body?: string,
  ): Promise<RpcAnswer> {
    const acting = actingHeaders(as);
    if ("refused" in acting) return acting.refused;
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, ...acting.headers };
    if (body !== undefined) headers["content-type"] = "application/json";
    const request = new Request(`https://toolgate.internal${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const response = await app.fetch(request, env, markBindingContext(ctx));
    const json = (await response.json()) as Record<string, unknown>;
    if (response.ok) return { ok: true, status: response.status, value: json };
    const error = (json as Partial<ErrorBody>).error ?? { code: "http_error", message: `HTTP ${response.status}` };
    return { ok: false, status: response.status, error };
  }

  return class ToolgateService extends WorkerEntrypoint<Bindings> {
    /** GET /v1/tools/:format */
    listTools(key: string, format: string, as?: ActingFor): Promise<RpcAnswer> {
      return send(this.env, this.ctx, key, as, "GET", `/v1/tools/${encodeURIComponent(format)}`);
    }

    /** POST /v1/calls/:format, or POST /v1/calls (format detected) when format is null/undefined. */
    runCalls(key: string, format: string | null | undefined, body: unknown, as?: ActingFor): Promise<RpcAnswer> {
      const path = format ? `/v1/calls/${encodeURIComponent(format)}` : "/v1/calls";
      return send(this.env, this.ctx, key, as, "POST", path, JSON.stringify(body ?? null));
    }

    /** GET /v1/calls/:id, or with wait (seconds, at most 60) GET /v1/calls/:id?wait=: until the call is terminal. */
    getRecord(key: string, id: string, wait?: number | null, as?: ActingFor): Promise<RpcAnswer> {
      const query = wait === undefined || wait === null ? "" : `?wait=${encodeURIComponent(String(wait))}`;
      return send(this.env, this.ctx, key, as, "GET", `/v1/calls/${encodeURIComponent(id)}${query}`);
    }

    /** POST /v1/calls/:id/input: answers to a call waiting for its caller's input, by question key. */
    answerCall(key: string, id: string, inputResponses: Record<string, unknown>, as?: ActingFor): Promise<RpcAnswer> {
      const body = JSON.stringify({ inputResponses });
      return send(this.env, this.ctx, key, as, "POST", `/v1/calls/${encodeURIComponent(id)}/input`, body);
    }
  };
}
