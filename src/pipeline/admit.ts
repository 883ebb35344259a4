import { dropNullOptionals } from "../schema/strict-nulls";
import { describeIssues, withoutFinalStop } from "../validation";
import { parseArguments } from "./arguments";
import type { PipelineEnv } from "./env";
import { deny, fail } from "./finish";
import { hookCallOf, type CallState, type StepOutcome } from "./state";
import { isThenable } from "./thenable";
import type { BeforeCallOutcome } from "../hooks";

const VALID = Object.freeze({ ok: true }) as CallState["validation"];

/** A tool of that name exists; otherwise the model learns which tools there are. */
export function resolveTool(state: CallState): StepOutcome {
  const tool = state.env.registry.get(state.name);
  if (!tool) return fail(state, "unknown_tool", unknownToolMessage(state.env, state.name));
  state.tool = tool;
  return undefined;
}

/** The isAllowed hook (e.g. a tenant's allow-list) may refuse the tool outright. */
export function checkAllowed(state: CallState): StepOutcome {
  const allowed = state.env.hooks.isAllowed!(hookCallOf(state));
  const decide = (ok: boolean) => (ok ? undefined : fail(state, "denied", `Tool "${state.name}" is not allowed here.`));
  return typeof allowed === "boolean" ? decide(allowed) : Promise.resolve(allowed).then(decide);
}

/**
 * Parse and harden the arguments, then validate them against the tool's schema: nothing has run
 * yet. state.args keeps them as parsed (for the record and the journal), state.input as validated.
 */
export function admitArguments(state: CallState): StepOutcome {
  const tool = state.tool!;
  const parsed = parseArguments(state.raw, state.env.limits);
  if (!parsed.ok) {
    if (parsed.issues) state.validation = { ok: false, issues: parsed.issues };
    return fail(state, parsed.code, `Tool "${tool.name}": ${parsed.message}`, parsed.issues);
  }
  state.args = parsed.value;
  // OpenAI strict mode sends null for an omitted optional: read it as omitted, for every format alike.
  const input = parsed.hasNull ? dropNullOptionals(tool.inputSchema, parsed.value) : parsed.value;
  const validated = tool.validateInput(input);
  if (!validated.ok) {
    state.validation = { ok: false, issues: validated.issues };
    const issues = withoutFinalStop(describeIssues(validated.issues));
    const message = `Invalid arguments for tool "${tool.name}": ${issues}. Fix them and call again.`;
    return fail(state, "invalid_arguments", message, validated.issues);
  }
  state.validation = VALID;
  state.input = validated.value;
  return undefined;
}

/** The beforeCall hook, after validation and before any side effect: new arguments, or a denial. */
export function rewriteArguments(state: CallState): StepOutcome {
  const outcome = state.env.hooks.beforeCall!(hookCallOf(state), state.input);
  // A hook that answers at once keeps the call synchronous.
  return isThenable(outcome)
    ? Promise.resolve(outcome).then((settled) => rewritten(state, settled))
    : rewritten(state, outcome);
}

function rewritten(state: CallState, outcome: BeforeCallOutcome): StepOutcome {
  if (outcome && "deny" in outcome) return deny(state, outcome.deny);
  if (outcome && "args" in outcome) state.input = outcome.args;
  return undefined;
}

function unknownToolMessage(env: PipelineEnv, name: string): string {
  const names = env.registry.list().map((tool) => tool.name);
  const shown = names.slice(0, 20).join(", ");
  const more = names.length > 20 ? ` and ${names.length - 20} more` : "";
  return `Unknown tool "${name}". Available tools: ${shown || "none"}${more}.`;
}
