/**
 * When a call id already belongs to a call: the id is its first key's and user's (another key, or the
 * same key for another user, learns only that it is taken, never its outcome), and the same id with
 * other arguments is another call. Shared by the ledger's check-and-write (claims.ts) and an isolate's
 * records not yet stored (after-answer.ts). Answers the conflict for this key, user and arguments;
 * undefined when it is the same call.
 */
export function takenConflict(
  callId: string,
  taken: { key: string | null; userId: string | null; tool: string; argsHash: string },
  who: { key: string | null; userId: string | null },
  argsHash: string,
  sameOwner = false,
): { kind: "conflict"; message: string } | undefined {
  if ((taken.key !== who.key || taken.userId !== who.userId) && !sameOwner) {
    return { kind: "conflict", message: `The call id "${callId}" is already taken. A new call needs a new id.` };
  }
  if (taken.argsHash !== argsHash) {
    const message =
      `The call id "${callId}" was already used for a different call (tool "${taken.tool}" with other arguments). ` +
      `A new call needs a new id.`;
    return { kind: "conflict", message };
  }
  return undefined;
}
