/**
 * This isolate's kept slots (src/gates/slot-pool.ts), one pool per gate, shared by its requests:
 * module state lives as long as the isolate.
 */
import { createSlotPools } from "../../src/gates/slot-pool";

export const isolateSlots = createSlotPools();
