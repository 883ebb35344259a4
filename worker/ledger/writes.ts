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
 * Workers' rule for work shared across requests: every group is sent from the request of one of its
 * writers (its own stub, kept alive by its own waitUntil), and each writer learns its answer through a
 * promise it created itself. The next group is started by whichever waiting writer wakes first, in its
 * own request. If a sender's request dies anyway, its writers send their writes alone after STALL_MS.
 */

/** Longest a write waits for its group before it is sent alone. */
export const STALL_MS = 5_000;
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
  settle(outcome: WriteOutcome): void;
  fail(error: unknown): void;
  /** Resolves the writer's own wake-up promise: it then sends the next group if none is on its way. */
  wake(): void;
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
  let settled = false;
  const result = new Promise<WriteOutcome>((resolve, reject) => {
    const settle = (outcome: WriteOutcome) => ((settled = true), resolve(outcome));
    const fail = (error: unknown) => ((settled = true), reject(error));
    const pending: Pending = { write, settle, fail, wake: () => undefined };
    // The wake-up promise is made, and its reaction registered, in this request: a group it
    // sends is this request's I/O.
    const arm = () => {
      void new Promise<void>((r) => (pending.wake = r)).then(() => {
        if (settled) return;
        if (q.due && idle(q)) void sendGroup(q, context);
        else arm();
      });
    };
    arm();
    // Never cleared: the write is usually answered from another request (its group's sender), and
    // clearing a timer there cost more CPU than the whole stall check (profiled under load); a request
    // that has ended drops its timers, and one still alive finds its write answered and returns.
    setTimeout(() => {
      if (settled) return;
      // The group holding it was lost with its sender's request: this write goes alone.
      const at = q.pending.indexOf(pending);
      if (at >= 0) q.pending.splice(at, 1);
      callDurable(context.stub, (ledger) => ledger.writeMany([write])).then((outcomes) => settle(outcomes[0]!), fail);
    }, context.stallMs ?? STALL_MS);
    // The first write of a new set: not due until it says so (a delay timer of an earlier set does not count).
    if (q.pending.length === 0) {
      q.due = false;
      q.generation++;
    }
    q.pending.push(pending);
    // A delayed write that finds no other waiting holds the group open for delayMs (later ones join
    // it, also while an earlier group is on its way); a write that cannot wait makes the group due at
    // once, delayed writes and all.
    if (!context.delayMs) {
      q.due = true;
      if (idle(q)) pending.wake();
    } else if (q.pending.length === 1) {
      const generation = q.generation;
      setTimeout(() => {
        if (q.generation !== generation) return;
        q.due = true;
        pending.wake();
      }, context.delayMs);
    }
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
  const sent = callDurable(context.stub, (ledger) => ledger.writeMany(group.map((p) => p.write)));
  context.waitUntil?.(sent.catch(() => undefined));
  try {
    const outcomes = await sent;
    for (const [i, p] of group.entries())
      p.settle(outcomes[i] ?? { kind: "error", message: "The ledger answered fewer writes than it was sent." });
  } catch (error) {
    for (const p of group) p.fail(error);
  } finally {
    if (queue.sentAt === sentAt) queue.sentAt = undefined;
    // Every waiting writer is woken in its own request; the first to run sends the next group.
    for (const p of queue.pending) p.wake();
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
