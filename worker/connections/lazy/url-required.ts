/** A call's refusal for want of a connection (tokens.ts userToken): the connect URL it names. */
const CONNECT_REFUSAL =
  /^Connect .+ first \(.+\): open (\S+\/connections\/[a-z][a-z0-9_-]{0,31}\/connect), then call again\.$/s;

/** One URL-mode elicitation of MCP 2025-11-25's URLElicitationRequiredError (-32042). */
export interface UrlElicitation {
  mode: "url";
  elicitationId: string;
  url: string;
  message: string;
}

/**
 * The connect page a denied call's message names, as a URL-mode elicitation; undefined for any other
 * message. Only `origin`'s connect pages count, so no tool's own error text can send the client elsewhere.
 */
export function connectElicitation(message: string, origin: string): UrlElicitation | undefined {
  const url = CONNECT_REFUSAL.exec(message)?.[1];
  if (url === undefined || !url.startsWith(`${origin}/connections/`)) return undefined;
  return { mode: "url", elicitationId: crypto.randomUUID(), url, message };
}
