import type { ToolgateClient } from "../../src/client";
import type { CallRecord } from "../../src/result";
import { askModel, type ModelSettings, type ModelTurn } from "./model-api";

export interface LoopEvents {
  /** The model answered a turn (text, tool calls, or both). */
  model(turn: ModelTurn): void;
  /** toolgate ran the turn's tool calls: their records, in order. */
  calls(records: CallRecord[]): void;
}

/** Why the loop ended: the model answered without calling tools, or it reached the turn limit. */
export type LoopEnd = "answered" | "turn_limit";

/**
 * The model loop: the model gets the tenant's tools in its API's format; every tool call it makes is
 * run through toolgate (the format's own endpoint, so the answer is exactly what to append), until the
 * model answers without calling a tool or `maxTurns` model turns have passed.
 */
export async function runModelLoop(client: ToolgateClient, settings: ModelSettings, prompt: string, maxTurns: number, events: LoopEvents, signal: AbortSignal): Promise<LoopEnd> {
  const { tools } = await client.tools(settings.api);
  const messages: unknown[] = [{ role: "user", content: prompt }];
  for (let turn = 0; turn < maxTurns; turn++) {
    const answer = await askModel(settings, messages, tools, signal);
    messages.push(answer.message);
    events.model(answer);
    if (answer.toolCalls.length === 0) return "answered";
    if (settings.api === "openai") {
      const ran = await client.run("openai", answer.message, { signal });
      events.calls(ran.calls);
      messages.push(...ran.messages);
    } else {
      const ran = await client.run("anthropic", answer.message, { signal });
      events.calls(ran.calls);
      messages.push(ran.message);
    }
  }
  return "turn_limit";
}
