import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import * as v from "valibot";
import { defineTool } from "../../../src/tool";
import type { CallToClaim } from "../../../src/journal";
import type { ToolPolicy } from "../../../src/policy";
import type { CallRecord } from "../../../src/result";
import type { Ledger } from "../../../worker/ledger/ledger";
import type { LedgerSettings } from "../../../worker/ledger/settings";
import { createLedgerJournal, type LedgerJournalOptions } from "../../../worker/ledger/journal";
import { shardOf, tenantLedger } from "../../../worker/ledger/address";

export const uid = () => crypto.randomUUID().slice(0, 8);

export const SHARDS = 3;

/** The tenant's ledger with SHARDS shards. */
const ledgerOf = (tenant: string) => tenantLedger({ LEDGER: env.LEDGER, LEDGER_SHARDS: SHARDS }, tenant);

export function journal(tenant: string, more: Partial<LedgerJournalOptions> = {}) {
  return createLedgerJournal({ ledger: ledgerOf(tenant), ...more });
}

/** The raw stub (for cloudflare:test helpers) and the typed one. */
export function shardOfCall(tenant: string, callId: string) {
  return ledgerOf(tenant).shard(shardOf(callId, SHARDS));
}
export function rawShard(tenant: string, shard: number): DurableObjectStub {
  return ledgerOf(tenant).shard(shard) as unknown as DurableObjectStub;
}
export function rawShardOfCall(tenant: string, callId: string): DurableObjectStub {
  return shardOfCall(tenant, callId) as unknown as DurableObjectStub;
}

export function record(
  tenant: string,
  callId: string,
  status: CallRecord["status"],
  extra: Partial<CallRecord> = {},
): CallRecord {
  return {
    callId,
    tenant,
    tool: "echo",
    source: "valibot",
    schemaHash: "h",
    args: { text: "hi" },
    validation: { ok: true },
    permission: "allow",
    attempts: 1,
    startedAt: Date.now(),
    durationMs: 0,
    status,
    ...extra,
  };
}

/**
 * What the pipeline hands journal.begin(): a call of a tool named `tool` with this policy (readOnly
 * ones defer their claim) and these arguments (the journal hashes them: other arguments, other hash).
 */
export function claim(
  tenant: string,
  callId: string,
  options: {
    tool?: string;
    policy?: ToolPolicy;
    args?: unknown;
    status?: CallToClaim["status"];
    record?: Partial<CallRecord>;
  } = {},
): CallToClaim {
  const name = options.tool ?? "echo";
  const status = options.status ?? "running";
  const tool = defineTool({
    name,
    description: name,
    input: v.looseObject({}),
    ...(options.policy ? { policy: options.policy } : {}),
    run: () => "",
  });
  return {
    callId,
    tool,
    args: options.args ?? { text: "hi" },
    status,
    approved: false,
    record: record(tenant, callId, status, { tool: name, ...options.record }),
  };
}

/** A tool that counts its runs and returns what the test lets it. */
export function countingTool(name = "echo", policy: Parameters<typeof defineTool>[0]["policy"] = {}) {
  const state = { runs: 0, release: undefined as undefined | (() => void) };
  const tool = defineTool({
    name,
    description: "echo",
    input: v.object({ text: v.string() }),
    policy,
    async run({ text }, ctx) {
      state.runs++;
      if (text.startsWith("wait")) {
        await new Promise<void>((resolve, reject) => {
          state.release = resolve;
          ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true });
        });
      }
      if (text.startsWith("big:")) return "x".repeat(Number(text.slice(4)));
      return `echo ${text}`;
    },
  });
  return { tool, state };
}

/** Changes a shard's settings in place (short waits and limits for tests). */
export async function tune(stub: DurableObjectStub, patch: Partial<LedgerSettings>): Promise<void> {
  await runInDurableObject(stub, (instance: DurableObject) => {
    const ledger = instance as unknown as Ledger;
    ledger.settings = { ...ledger.settings, ...patch };
  });
}
