import { toolError, type ToolError } from "../../errors";
import { readCapped } from "../upstream";

/**
 * How an MCP session ends without the client ending it, and what that means for the request in
 * flight: "refused" — the server answered that it does not know the session (the request did not
 * run); "lost" — the connection broke or the stream ended without an answer (the request may have
 * run, and a restarted server has forgotten the session).
 */
export type SessionEnd = "refused" | "lost";

const ends = new WeakMap<object, SessionEnd>();

/** Tag an error as the end of the session. */
export function endsSession<E extends object>(error: E, how: SessionEnd): E {
  ends.set(error, how);
  return error;
}

/** How the error ended the session, or undefined when the session is still good. */
export function sessionEndOf(error: unknown): SessionEnd | undefined {
  return typeof error === "object" && error !== null ? ends.get(error) : undefined;
}

/** A 400 body that speaks of the session: "No valid session ID provided", "Server not initialized" … */
const SESSION_WORDS = /session|not initiali[sz]ed/i;
const EXCERPT_BYTES = 4096;

/**
 * The server's answer to a request sent with a session id, checked for "I do not know that session":
 * 404 (the spec's answer) or 400 naming the session (what the reference server and many others send).
 * Answers the refusal as a tagged upstream_error; otherwise a response whose body is intact.
 */
export async function refusedSession(response: Response, label: string): Promise<ToolError | Response> {
  if (response.status !== 404 && response.status !== 400) return response;
  const { bytes } = await readCapped(response, EXCERPT_BYTES).catch(() => ({ bytes: new Uint8Array(0) }));
  const text = new TextDecoder().decode(bytes);
  if (response.status === 400 && !SESSION_WORDS.test(text)) {
    return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  const error = toolError("upstream_error", `${label} no longer knows the session (HTTP ${response.status})`, {
    status: response.status,
    retryable: true,
  });
  return endsSession(error, "refused");
}
