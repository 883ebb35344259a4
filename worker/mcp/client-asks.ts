import type { AskMethod, InputRequest } from "../../src/ask";
import { isPlainObject } from "../../src/json";

/**
 * What a legacy (2025-11-25 and earlier) client declared at initialize that it answers: elicitation
 * (form and URL modes), sampling (and sampling with tools) and roots, as bits. A session id carries
 * them, tagged (session.ts), so any isolate knows them from the id alone.
 */

const FLAG = { form: 1, url: 2, sampling: 4, samplingTools: 8, roots: 16 } as const;
export const MAX_ASK_FLAGS = 31;

/** The bits of an initialize's `capabilities`: `elicitation: {}` is form mode only, as the spec says. */
export function askFlagsOf(capabilities: Record<string, unknown> | undefined): number {
  let flags = 0;
  const { elicitation, sampling, roots } = capabilities ?? {};
  if (isPlainObject(elicitation)) {
    const modes = elicitation.form === undefined && elicitation.url === undefined;
    if (modes || elicitation.form !== undefined) flags |= FLAG.form;
    if (elicitation.url !== undefined) flags |= FLAG.url;
  }
  if (isPlainObject(sampling)) flags |= FLAG.sampling | (sampling.tools === undefined ? 0 : FLAG.samplingTools);
  if (isPlainObject(roots)) flags |= FLAG.roots;
  return flags;
}

/** The methods a client with these bits answers (elicitation: in form mode, which approval: "user" uses). */
export function askMethodsOf(flags: number): Set<AskMethod> {
  const methods = new Set<AskMethod>();
  if (flags & FLAG.form) methods.add("elicitation/create");
  if (flags & FLAG.sampling) methods.add("sampling/createMessage");
  if (flags & FLAG.roots) methods.add("roots/list");
  return methods;
}

/** Why a client with these bits must not be sent this request (a mode or feature it did not declare), or undefined. */
export function unsupportedBy(flags: number, request: InputRequest): string | undefined {
  if (request.method === "elicitation/create" && request.params.mode === "url" && !(flags & FLAG.url)) {
    return "the MCP client did not declare URL-mode elicitation (elicitation.url)";
  }
  if (request.method === "sampling/createMessage" && (request.params.tools !== undefined || request.params.toolChoice !== undefined) && !(flags & FLAG.samplingTools)) {
    return "the MCP client did not declare sampling with tools (sampling.tools)";
  }
  return undefined;
}
