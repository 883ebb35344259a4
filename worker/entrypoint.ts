import { WorkerEntrypoint } from "cloudflare:workers";
import type { Hono } from "hono";
import type { AppEnv, Bindings } from "./env";
import type { ErrorBody } from "./errors";
import { markBindingContext } from "./surface";

/** What every RPC method answers: the HTTP body on success, the HTTP error otherwise (never a throw). */
export type RpcAnswer<T = Record<string, unknown>> =
  | { ok: true; status: number; value: T }
  | { ok: false; status: number; error: ErrorBody["error"] };

/**
 * The API for chat apps that are Workers themselves (a service binding, no public hop). Each method
 * sends the same request the HTTP API would get through the same app, so keys, scopes, limits,
 * records and logs are exactly those of HTTP. Made per app: the entry module exports the class made
 * for the app it serves.
 *
 *   [[services]] binding = "TOOLGATE", service = "toolgate", entrypoint = "ToolgateService"
 *   const { value } = await env.TOOLGATE.runCalls(key, "openai", completion.choices[0].message);
 */
export function createToolgateService(app: Hono<AppEnv>) {
  /** One request through the app, as the binding's (the context is marked: surface "binding"). */
  async function send(
    env: Bindings,
    ctx: ExecutionContext,
    key: string,
    method: string,
    path: string,
    body?: string,
  ): Promise<RpcAnswer> {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
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
    listTools(key: string, format: string): Promise<RpcAnswer> {
      return send(this.env, this.ctx, key, "GET", `/v1/tools/${encodeURIComponent(format)}`);
    }

    /** POST /v1/calls/:format, or POST /v1/calls (format detected) when format is null/undefined. */
    runCalls(key: string, format: string | null | undefined, body: unknown): Promise<RpcAnswer> {
      const path = format ? `/v1/calls/${encodeURIComponent(format)}` : "/v1/calls";
      return send(this.env, this.ctx, key, "POST", path, JSON.stringify(body ?? null));
    }

    /** GET /v1/calls/:id, or with wait (seconds, at most 60) GET /v1/calls/:id?wait=: until the call is terminal. */
    getRecord(key: string, id: string, wait?: number): Promise<RpcAnswer> {
      const query = wait === undefined ? "" : `?wait=${encodeURIComponent(String(wait))}`;
      return send(this.env, this.ctx, key, "GET", `/v1/calls/${encodeURIComponent(id)}${query}`);
    }

    /** POST /v1/calls/:id/input: answers to a call waiting for its caller's input, by question key. */
    answerCall(key: string, id: string, inputResponses: Record<string, unknown>): Promise<RpcAnswer> {
      return send(
        this.env,
        this.ctx,
        key,
        "POST",
        `/v1/calls/${encodeURIComponent(id)}/input`,
        JSON.stringify({ inputResponses }),
      );
    }
  };
}
