import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readBuildStatus } from "../../../scripts/build-status.mjs";
import { DEMO_KEYS } from "../../../worker/demo/tenant";
import { scratchCheckout, type ScratchCheckout } from "../../servers/scratch-checkout";
import { eventually } from "../../wait";
import { startDevServer, type DevServer } from "../../servers/wrangler-dev";

/**
 * A mistake in a tool file while `wrangler dev` runs (watching tools/, in a scratch copy of the
 * checkout): the dev server answers at once, 503 build_failed naming the problem and its file, and
 * serves the tool once it is fixed; a deploy's build still fails on the same mistake.
 */

/** A hung request is the defect: each request gets this long, far above what an answer takes. */
const REQUEST_BOUND_MS = 10_000;
/** Rebuilds run the build command and bundle again: seconds on a loaded machine. */
const REBUILD_MS = 60_000;

const tool = (name: string) => `import * as v from "valibot";
import { defineTool } from "../src";

export default defineTool({
  name: "${name}",
  description: "Look an order up by its id.",
  input: v.object({ id: v.string() }),
  tags: ["demo"],
  run: ({ id }) => ({ id }),
});
`;

let scratch: ScratchCheckout;
let server: DevServer;
beforeAll(async () => {
  scratch = scratchCheckout();
  server = await startDevServer({ root: scratch.root, watch: true });
}, 180_000);
afterAll(async () => {
  await server?.stop();
  scratch?.remove();
});

interface Answer {
  status: number;
  body: unknown;
}
const get = async (path: string): Promise<Answer> => {
  const res = await fetch(`${server.url}${path}`, {
    headers: { authorization: `Bearer ${DEMO_KEYS.call}` },
    signal: AbortSignal.timeout(REQUEST_BOUND_MS),
  });
  return { status: res.status, body: await res.json() };
};
/** Waits until `path` answers `status`, and returns that answer; a timeout names the last answer (or the hang). */
async function answerWith(path: string, status: number): Promise<Answer> {
  let last: Answer | Error = new Error("no answer yet");
  const check = async () => {
    last = await get(path).catch(
      (error: unknown) => new Error(`no answer within ${REQUEST_BOUND_MS} ms (${String(error)})`),
    );
    return !(last instanceof Error) && last.status === status;
  };
  await eventually(check, `${path} answers ${status}`, REBUILD_MS).catch((error: Error) => {
    throw new Error(`${error.message}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
  });
  return last as unknown as Answer;
}

describe("a tool file with a mistake under wrangler dev", () => {
  const file = () => join(scratch.root, "tools/get_order.ts");

  it(
    "answers every request at once, 503 build_failed naming the problem and the file",
    async () => {
      writeFileSync(file(), tool("getOrder"));
      const health = await answerWith("/healthz", 503);
      expect(health.body).toEqual({
        error: {
          code: "build_failed",
          message: expect.stringContaining(
            'tools/get_order.ts default-exports the tool "getOrder": a tool file is named after its tool',
          ),
          file: "tools/get_order.ts",
        },
      });
      expect((await get("/v1/tools")).status).toBe(503);
      // What npm run dev prints (scripts/dev.ts): the failure, with its file.
      expect(readBuildStatus(scratch.root)).toMatchObject({ ok: false, file: "tools/get_order.ts" });
    },
    REBUILD_MS * 2,
  );

  it(
    "fails a deploy's build all the same",
    () => {
      const wrangler = resolve("node_modules/wrangler/bin/wrangler.js");
      const run = spawnSync(process.execPath, [wrangler, "deploy", "--dry-run", "--outdir", ".tmp/dry"], {
        cwd: scratch.root,
        encoding: "utf8",
      });
      expect(run.status).not.toBe(0);
      expect(run.stdout + run.stderr).toContain('tools/get_order.ts default-exports the tool "getOrder"');
    },
    REBUILD_MS,
  );

  it(
    "serves the tool once the file is fixed",
    async () => {
      writeFileSync(file(), tool("get_order"));
      await answerWith("/healthz", 200);
      expect(readBuildStatus(scratch.root)).toMatchObject({ ok: true });
      const listing = await get("/v1/tools");
      expect(listing.status).toBe(200);
      expect((listing.body as { tools: { name: string }[] }).tools.map((entry) => entry.name)).toContain("get_order");
    },
    REBUILD_MS * 2,
  );
});
