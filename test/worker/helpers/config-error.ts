import { expect } from "vitest";
import { ConfigError } from "../../../worker/errors";
import { checkTenant } from "../../../worker/tenant/tenant";

/** The message of the ConfigError checkTenant throws for this configuration (fails the test when none). */
export function tenantConfigError(config: unknown): string {
  try {
    checkTenant(config);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  return expect.unreachable("expected a ConfigError");
}
