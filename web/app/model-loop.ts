import type { ToolgateClient } from "../../src/client";
import { FORMATS } from "../../src/formats";
import { createRegistry, type Registry } from "../../src/registry";
import type { CallRecord } from "../../src/result";
import { askModel, type ModelSettings, type ModelTurn } from "./model-api";

export interface LoopEvents {
  /** The model answered a turn (text, tool calls, or both). */
  model(turn: ModelTurn): void;
  /** toolgate ran the turn's tool calls: their records, in order. */
  calls(records: CallRecord[]): void;
}

const EMPTY = createRegistry([]);

/** Why the loop ended: the model answered without calling tools, or it reached the turn limit. */
export type LoopEnd = "answered" | "turn_limit";

/**
 * The model loop: the model gets the tenant's tools in its API's format; every tool call it makes is
 * run through toolgate (the format's own endpoint, so the answer is exactly what to append), until the
 * model answers without calling a tool or `maxTurns` model turns have passed.
 */
export async function runModelLoop(
  client: ToolgateClient,
  settings: ModelSettings,
  prompt: string,
  options: { maxTurns: number; browserTools?: Registry },
  events: LoopEvents,
  signal: AbortSignal,
): Promise<LoopEnd> {
  const local = options.browserTools;
  const format = FORMATS[settings.api];
  // Tools in the page join the tenant's, in the same format; a batch mixing both runs each where it lives.
  const tools = [
    ...(await client.tools(settings.api)).tools,
    ...(local?.list() ?? []).map((tool) => format.toolDefinition(tool)),
  ];
  const messages: unknown[] = [{ role: "user", content: prompt }];
  for (let turn = 0; turn < options.maxTurns; turn++) {
    const answer = await askModel(settings, messages, tools, signal);
    messages.push(answer.message);
    events.model(answer);
    if (answer.toolCalls.length === 0) return "answered";
    const ran = await client.runMixed(answer.message, { localRegistry: local ?? EMPTY, format: settings.api, signal });
    events.calls(ran.results.map((result) => result.record));
    const reply = ran.answer as { messages?: unknown[]; message?: unknown };
    if (reply.messages) messages.push(...reply.messages);
    else messages.push(reply.message);
  }
  return "turn_limit";
}
