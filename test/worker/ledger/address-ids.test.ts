import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { tenantLedger, type LedgerNamespace } from "../../../worker/ledger/address";
import { uid } from "../helpers/ledger";

/** The ledger's object ids are made once per name in an isolate (worker/ledger/address.ts); stubs per use. */
describe("ledger object ids", () => {
  it("hashes each shard's name once, across requests' addresses, and every stub reaches its shard", async () => {
    const named: string[] = [];
    let stubs = 0;
    const real = env.LEDGER;
    const counting = {
      idFromName: (name: string) => (named.push(name), real.idFromName(name)),
      get: (id: DurableObjectId) => (stubs++, real.get(id)),
    } as unknown as LedgerNamespace;
    const tenant = `ids-${uid()}`;
    // Two requests' addresses of the same tenant, as each request makes its own.
    for (let request = 0; request < 2; request++) {
      const ledger = tenantLedger({ LEDGER: counting, LEDGER_SHARDS: 2 }, tenant);
      expect(await ledger.shard(0).holds("none")).toBe(false);
      expect(await ledger.shard(1).holds("none")).toBe(false);
      expect(await ledger.shard(0).holds("none")).toBe(false);
    }
    expect(named).toEqual([`${tenant}/ledger/0`, `${tenant}/ledger/1`]);
    expect(stubs).toBe(6);
  });
});
