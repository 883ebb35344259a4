import type { DetachedCall } from "../runner";
import type { CallState } from "./state";

/** What a runner needs to run this call again from its start, finishing it as `owner`. */
export function jobOf(state: CallState, owner: string): DetachedCall {
  const tool = state.tool!;
  const idempotent = (tool.policy.idempotent ?? tool.policy.readOnly) === true;
  const job: DetachedCall = { callId: state.callId, tool: tool.name, args: state.args, owner, idempotent };
  if (state.env.approved) job.approved = true;
  // The run is for the same user: ctx.user, hooks and "@user" gates see them there too.
  if (state.env.user) job.user = { ...state.env.user };
  // A traced call's run continues its trace, under its span.
  const traceparent = state.env.tracer?.traceparentOf?.(state.callId, tool.name);
  if (traceparent !== undefined) job.traceparent = traceparent;
  // Its caller answers later (an MCP task, an HTTP call): the run may ask what the caller answers.
  if (state.env.ask?.waits) {
    job.asks = [...state.env.ask.methods];
    if (state.env.ask.elicitationModes) job.elicitationModes = [...state.env.ask.elicitationModes];
  }
  return job;
}

/**
 * A call of this request that asked a caller who answers later: the runner keeps its job, with the
 * owner of its claim (claimed now if the claim was deferred), to run it again with the answers. The
 * journal still finishes the call here, as awaiting_input; false (then it ends input_required) when
 * there is no runner that holds calls, or no claim.
 */
export async function holdForAnswers(state: CallState): Promise<boolean> {
  const { env } = state;
  if (!env.runner?.hold) return false;
  const claim = await env.journal?.handOff?.(state.callId);
  return claim ? env.runner.hold(jobOf(state, claim.owner)) : false;
}
