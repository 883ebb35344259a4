import { answersOverLimit } from "../../../src/ask";
import { RpcCode } from "../../../src/mcp/errors";
import type { ClientResponse } from "../jsonrpc";
import type { AskStore } from "./ask-store";
import { callOfAskId } from "./call-ids";

/**
 * A legacy client's JSON-RPC responses to what a call asked it (legacy-ask.ts), POSTed on their own
 * and landing on any isolate: each is stored on the ledger shard of the call its id names, where the
 * waiting request reads it. The session's own reference is part of that call id, so a session can
 * answer only its own calls' questions.
 */

/** Why a response was not taken; the POST then answers 400 with this error (id null, as the spec allows). */
export interface Refusal {
  code: number;
  message: string;
}

/** Stores one response: undefined when taken (or a repeat of one taken), else why it was refused. */
export async function takeAnswer(
  response: ClientResponse,
  sessionRef: string,
  store: AskStore,
): Promise<Refusal | undefined> {
  const callId = callOfAskId(sessionRef, response.id);
  const unknown: Refusal = {
    code: RpcCode.invalidRequest,
    message:
      `No request of this session waits for the response ${JSON.stringify(response.id).slice(0, 100)}: ` +
      `it is not one this server sent, or its wait ended (answered, timed out, cancelled).`,
  };
  if (!callId) return unknown;
  const text = JSON.stringify(
    response.error === undefined ? { result: response.result ?? null } : { error: response.error },
  );
  // One response over the bound of all a call's answers (src/ask.ts) is refused; the waiting call
  // learns why it gets no answer instead of waiting until it times out.
  const tooLarge = answersOverLimit(text.length, "This answer");
  if (tooLarge) {
    const message = `${tooLarge}.`;
    const outcome = await store.answer(
      callId,
      String(response.id),
      JSON.stringify({ error: { code: RpcCode.invalidParams, message } }),
    );
    return outcome === "unknown" ? unknown : { code: RpcCode.invalidParams, message };
  }
  return (await store.answer(callId, String(response.id), text)) === "unknown" ? unknown : undefined;
}
