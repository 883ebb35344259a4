// Types of scripts/test.mjs (npm test).
export interface Suite {
  name: string;
  command: string[];
  /** Why the suite cannot run here, if it cannot. */
  skip?: () => string | undefined;
  /** Whether a suite that cannot run fails the run (the browser tests in CI). */
  required?: () => boolean;
}
export interface SuiteResult {
  name: string;
  outcome: "passed" | "failed" | "skipped";
  detail: string;
  ms: number;
}
export declare const SUITES: Suite[];
export declare function runSuites(suites: readonly Suite[], options?: { log?: (line: string) => void }): SuiteResult[];
