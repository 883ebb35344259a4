import type { AskChannel, AskMethod, ElicitationMode, InputRequest } from "../../src/ask";
import { isPlainObject } from "../../src/json";

/**
 * What a client declared that it answers, in either era: elicitation (form and URL modes), sampling
 * (and sampling with tools) and roots, as bits. A legacy (2025-11-25 and earlier) client declares
 * them at initialize, and its session id carries them, tagged (v2025/session.ts), so any isolate knows
 * them from the id alone; a 2026-07-28 client declares them in each request's _meta
 * (v2026/input-required.ts).
 */

const FLAG = { form: 1, url: 2, sampling: 4, samplingTools: 8, roots: 16 } as const;
export const MAX_ASK_FLAGS = 31;

/** The bits of a client's `capabilities`: `elicitation: {}` is form mode only, as both eras' specs say. */
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

/** What a client with these bits can be asked: the methods, and the elicitation modes (a ctx.ask channel's part). */
export function askableBy(flags: number): Pick<AskChannel, "methods" | "elicitationModes"> {
  const elicitationModes = new Set<ElicitationMode>();
  if (flags & FLAG.form) elicitationModes.add("form");
  if (flags & FLAG.url) elicitationModes.add("url");
  return { methods: askMethodsOf(flags), elicitationModes };
}

/** The methods a client with these bits answers (elicitation in either mode; askableBy says which). */
export function askMethodsOf(flags: number): Set<AskMethod> {
  const methods = new Set<AskMethod>();
  if (flags & (FLAG.form | FLAG.url)) methods.add("elicitation/create");
  if (flags & FLAG.sampling) methods.add("sampling/createMessage");
  if (flags & FLAG.roots) methods.add("roots/list");
  return methods;
}

/**
 * Why a client with these bits must not be sent this request (a feature it did not declare), or
 * undefined. An elicitation of a mode it did not declare never gets here: ctx.ask refuses it first.
 */
export function unsupportedBy(flags: number, request: InputRequest): string | undefined {
  if (
    request.method === "sampling/createMessage" &&
    (request.params.tools !== undefined || request.params.toolChoice !== undefined) &&
    !(flags & FLAG.samplingTools)
  ) {
    return "the MCP client did not declare sampling with tools (sampling.tools)";
  }
  return undefined;
}
