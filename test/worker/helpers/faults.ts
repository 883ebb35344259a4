import { expect } from "vitest";
import { TERMINAL_STATUSES } from "../../../src/result";
import { adapterConfig, uid, upstreams } from "./adapters";
import { ADMIN_KEY, json, request } from "./requests";

/**
 * What every fault test checks after the fault: the call left exactly one terminal record, and no
 * gate of the tenant still holds a slot or a waiter.
 */

export type TenantEnv = Record<string, unknown>;

/** A fresh tenant (its own gates and ledger) with the demo keys, loopback egress and the given fields. */
export function faultTenant(prefix: string, patch: Record<string, unknown>): { name: string; env: TenantEnv } {
  const name = `${prefix}-${uid()}`;
  return { name, env: { TOOLGATE_CONFIG: adapterConfig(name, patch), TOOLGATE_DEMO: "false" } };
}

/** Arrival times the meter saw for one bucket (each is one request that reached the upstream). */
export async function arrivals(bucket: string): Promise<number[]> {
  return (await (await fetch(`${upstreams.meter}/log/${bucket}`)).json()) as number[];
}

/** Every record of the tenant, all pages (newest first). */
export async function allRecords(env: TenantEnv): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const res = await request(`/v1/calls?limit=200${cursor ? `&cursor=${cursor}` : ""}`, { env });
    expect(res.status).toBe(200);
    const page: any = await json(res);
    out.push(...page.calls.map((entry: any) => entry.record));
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

const TERMINAL: ReadonlySet<string> = new Set(TERMINAL_STATUSES);

/** Each id has exactly one record, it is terminal; answers the records by id. */
export async function expectOneTerminalRecordEach(env: TenantEnv, ids: string[]): Promise<Map<string, any>> {
  const records = await allRecords(env);
  const byId = new Map<string, any>();
  for (const id of ids) {
    const mine = records.filter((r) => r.callId === id);
    expect(mine, `records of ${id}`).toHaveLength(1);
    expect(TERMINAL.has(mine[0].status), `${id} is ${mine[0].status}`).toBe(true);
    byId.set(id, mine[0]);
  }
  return byId;
}

/** GET /v1/gates: no gate of the tenant has a holder or a waiter. */
export async function expectNoSlotHeld(env: TenantEnv): Promise<void> {
  const res = await request("/v1/gates", { env, key: ADMIN_KEY });
  expect(res.status).toBe(200);
  const { gates } = await json(res);
  for (const gate of gates)
    expect({ gate: gate.gate, holders: gate.holders, queueDepth: gate.queueDepth }).toEqual({
      gate: gate.gate,
      holders: [],
      queueDepth: 0,
    });
}
