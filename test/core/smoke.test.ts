import { expect, it } from "vitest";
import { createRegistry } from "../../src/registry";
it("empty", () => {
  expect(createRegistry().size).toBe(0);
});
