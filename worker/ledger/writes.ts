import type { CallRecord } from "../../src/result";
import type { LedgerWrite, WriteOutcome } from "./types";
import { callDurable } from "../durable/call";
import type { LedgerStub } from "./address";

/**
 * Group commit of ledger writes: the writes one isolate sends to one shard while an earlier group is
 * on its way travel together in one writeMany() round trip, so a busy isolate pays one Durable Object
 * call and one storage commit per group instead of per write. An idle shard gets no delay: the first
 * write leaves at the end of the current microtask turn (gathering only writes made in that turn).
 *
 * Workers' rule for work shared across requests: an I/O object (a stub, and a promise's resolver too:
 * workerd refuses to settle one request's promise from another, "Cannot perform I/O on behalf of a
 * different request") belongs to its request. So every group is sent from the request of one of its
 * writers (its own stub, kept alive by its own waitUntil), the sender only writes each answer into the
 * queue (data), and each writer reads its own on its own timers, every WAKE_CHECK_MS while it waits;
 * the next group is sent by whichever waiting writer looks first, in its own request. If a sender's
 * request dies anyway, its writers send their writes alone after STALL_MS.
 */

/** Longest a write waits for its group before it is sent alone. */
export const STALL_MS = 5_000;
/** How often a waiting writer looks for its answer, or for its turn to send: the delay queueing adds at most. */
export const WAKE_CHECK_MS = 2;
/** Bounds of one group: writes, and the estimated size of their records (Workers RPC messages are capped). */
const MAX_WRITES = 64;
const MAX_GROUP_CHARS = 1_000_000;

export interface WriteContext {
  /** A stub for the shard, from the writer's own request. */
  stub: () => LedgerStub;
  /** The writer's ctx.waitUntil: keeps its request alive until its write and any group it sends are done. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /** How long its write waits for a group before going alone (default STALL_MS). */
  stallMs?: number;
  /**
   * A write no answer waits for (a record stored after its answer): when it would leave alone, it
   * waits this long first, so the writes of this isolate's next requests to the shard join its group.
   */
  delayMs?: number;
}

interface Pending {
  write: LedgerWrite;
  /** Its size, measured once and only when it may join a group with others. */
  chars?: number;
  /** Once its group left: when that group counts as lost (its sender's stall time after it left). */
  lostAt?: number;
  /** Written by the request that sent its group; its writer reads it on its own timers. */
  answer?: { outcome: WriteOutcome } | { error: unknown };
}

interface ShardQueue {
  pending: Pending[];
  /**
   * Whether the waiting writes may leave as soon as no group is on its way: a write that cannot wait
   * makes them due at once, delayed ones once the delay of the first of them has passed.
   */
  due: boolean;
  /**
   * Counts the sets of waiting writes (a set starts when a write finds none waiting): an earlier
   * set's delay timer changes nothing.
   */
  generation: number;
  /** When the group on its way left; undefined when none is. */
  sentAt: number | undefined;
  /** Its sender's stall time: after it, the group counts as lost. */
  stallMs: number;
}

/**
 * Per shard of this isolate (and write scope): the key names the shard, e.g. "tenant/ledger/3", after its scope if any.
 */
const queues = new Map<string, ShardQueue>();

/** Sends `write` with the other writes to the same shard; answers what writeMany() answered for it. */
export function submitWrite(shard: string, write: LedgerWrite, context: WriteContext): Promise<WriteOutcome> {
  let queue = queues.get(shard);
  if (!queue)
    queues.set(shard, (queue = { pending: [], due: false, generation: 0, sentAt: undefined, stallMs: STALL_MS }));
  const q = queue;
  const pending: Pending = { write };
  const stallAt = Date.now() + (context.stallMs ?? STALL_MS);
  // The first write of a new set: not due until it says so (a delay timer of an earlier set does not count).
  if (q.pending.length === 0) {
    q.due = false;
    q.generation++;
  }
  q.pending.push(pending);
  // A delayed write that finds no other waiting holds the group open for delayMs (later ones join
  // it, also while an earlier group is on its way); a write that cannot wait makes the group due at
  // once, delayed writes and all.
  if (!context.delayMs) q.due = true;
  else if (q.pending.length === 1) {
    const generation = q.generation;
    setTimeout(() => {
      if (q.generation === generation) q.due = true;
    }, context.delayMs);
  }
  const result = new Promise<WriteOutcome>((resolve, reject) => {
    // Everything here runs in the writer's own request: its timers, its group's RPC, its promise.
    const look = (): void => {
      const answer = pending.answer;
      if (answer) {
        if ("outcome" in answer) resolve(answer.outcome);
        else reject(answer.error);
        return;
      }
      const at = q.pending.indexOf(pending);
      if (Date.now() >= (pending.lostAt ?? stallAt)) {
        // The group holding it was lost with its sender's request: this write goes alone.
        if (at >= 0) q.pending.splice(at, 1);
        callDurable(context.stub, (ledger) => ledger.writeMany([write])).then((o) => resolve(o[0]!), reject);
      } else if (at >= 0 && q.due && idle(q)) {
        const sending = sendGroup(q, context);
        // In the group it sent: its answer is read once it comes, and it looks again only once the
        // group counts as lost.
        if (pending.lostAt === undefined) setTimeout(look, WAKE_CHECK_MS);
        else {
          void sending.then(() => pending.answer && look());
          setTimeout(look, pending.lostAt - Date.now());
        }
      } else setTimeout(look, WAKE_CHECK_MS);
    };
    // A due write on an idle shard leaves at the end of this turn, with the writes made in it.
    if (q.due && idle(q)) void Promise.resolve().then(look);
    else setTimeout(look, WAKE_CHECK_MS);
  });
  context.waitUntil?.(result.catch(() => undefined));
  return result;
}

/** No group on its way, or the one on its way is lost (its writers are re-sending alone). */
function idle(queue: ShardQueue): boolean {
  return queue.sentAt === undefined || Date.now() - queue.sentAt > queue.stallMs;
}

async function sendGroup(queue: ShardQueue, context: WriteContext): Promise<void> {
  const group = takeGroup(queue);
  if (group.length === 0) return;
  const sentAt = (queue.sentAt = Date.now());
  queue.stallMs = context.stallMs ?? STALL_MS;
  for (const p of group) p.lostAt = sentAt + queue.stallMs;
  const sent = callDurable(context.stub, (ledger) => ledger.writeMany(group.map((p) => p.write)));
  context.waitUntil?.(sent.catch(() => undefined));
  try {
    const outcomes = await sent;
    for (const [i, p] of group.entries())
      p.answer = {
        outcome: outcomes[i] ?? { kind: "error", message: "The ledger answered fewer writes than it was sent." },
      };
  } catch (error) {
    for (const p of group) p.answer = { error };
  } finally {
    // The waiting writers see the shard idle on their next look; the first sends the next group.
    if (queue.sentAt === sentAt) queue.sentAt = undefined;
  }
}

function takeGroup(queue: ShardQueue): Pending[] {
  if (queue.pending.length <= 1) return queue.pending.splice(0);
  let chars = 0;
  let count = 0;
  for (const p of queue.pending) {
    const size = (p.chars ??= writeChars(p.write));
    if (count === MAX_WRITES || (count > 0 && chars + size > MAX_GROUP_CHARS)) break;
    chars += size;
    count++;
  }
  return queue.pending.splice(0, count);
}

/** The size of a write, roughly: its arguments and its record's output dominate. */
function writeChars(write: LedgerWrite): number {
  if (write.op === "begin") return 1_000 + jsonChars(write.input.args) + recordChars(write.input.record);
  return 1_000 + recordChars(write.op === "commit" ? write.input.record : write.record);
}

function jsonChars(value: unknown): number {
  return value === undefined ? 0 : (JSON.stringify(value)?.length ?? 0);
}

function recordChars(record: CallRecord): number {
  let chars = jsonChars(record.args);
  for (const item of record.output?.content ?? []) {
    if (item.type === "text") chars += item.text.length;
    else if (item.type === "image" || item.type === "audio") chars += item.data.length;
    else if (item.type === "resource")
      chars += "text" in item.resource ? item.resource.text.length : item.resource.blob.length;
  }
  // Structured output is usually also the text; alone, it is measured.
  if (record.output?.structured !== undefined && record.output.content.length === 0)
    chars += jsonChars(record.output.structured);
  return chars;
}
