/** The bindings of the gate objects (typed by the generated Env, so this module needs none of them). */
export type GateBindings = Pick<Env, "GATES" | "GATE_INDEX">;
export type GateStub = ReturnType<Env["GATES"]["get"]>;
export type GateIndexStub = ReturnType<Env["GATE_INDEX"]["get"]>;

/** Where a tenant's gates live. Stubs are made per call (a broken stub stays broken). */
export interface GatesAddress {
  readonly tenant: string;
  /** The Gate object of a gate key, as the pipeline names it (src/gate-key.ts). */
  for(gate: string): GateStub;
  /** The GateIndex that lists the tenant's gates (GET /v1/gates). */
  index(): GateIndexStub;
}

/** The tenant's gates in this environment (env.GATES, env.GATE_INDEX). */
export function tenantGates(env: GateBindings, tenant: string): GatesAddress {
  return {
    tenant,
    for: (gate) => env.GATES.get(env.GATES.idFromName(gate)),
    index: () => env.GATE_INDEX.get(env.GATE_INDEX.idFromName(tenant)),
  };
}
