import type { AskMethod, ElicitationMode } from "./ask";
import type { CallUser } from "./contract/users";

/**
 * A host that runs a call detached from the request that made it (in the Worker: a Durable Object
 * driven by its alarm), so the call runs to its end, its timeout or its cancel after the caller left.
 */
export interface CallRunner {
  /** Take over a claimed call and run it there; resolves once the host holds it (the record tells the rest). */
  detach(job: DetachedCall): Promise<void>;
  /**
   * A call answered as running that goes on in this request (execution "auto"): if the request dies
   * before it ends, the host settles it by its policy (an idempotent tool runs again, others end unknown).
   */
  standby?(job: DetachedCall): Promise<void>;
  /**
   * A call that ran in this request asked a caller who answers later (awaiting_input): the host keeps
   * the job and runs it again, with every answer, once they are all given. True once it holds it.
   */
  hold?(job: DetachedCall): Promise<boolean>;
}

/** What a host needs to run a claimed call again from its start. */
export interface DetachedCall {
  callId: string;
  tool: string;
  /** The arguments as parsed, unmasked (the host validates them again). */
  args: unknown;
  /** The journal's claim (HandOff.owner): the host finishes the record with it. */
  owner: string;
  /** The tool may run twice: a run lost with its host is run again instead of ending unknown. */
  idempotent: boolean;
  /** An admin approved the call: it runs without asking again. */
  approved?: boolean;
  /** The user the call is made for (ExecuteOptions.user): the run keeps it. */
  user?: CallUser;
  /**
   * Its caller answers questions later, on this call (an MCP task): what it can be asked. The run
   * asks (ctx.ask, approval: "user") and, unanswered, the call waits in its record (awaiting_input).
   */
  asks?: AskMethod[];
  /** The elicitation modes it declared (absent: form only). */
  elicitationModes?: ElicitationMode[];
  /** The traceparent of the call's span in the trace it began in (a traced tenant): the run continues it. */
  traceparent?: string;
  /** What the call waited for before this run, since when: the run's trace shows the wait as a span. */
  waited?: { for: "approval" | "input"; since: number };
}
