import type { Context } from "hono";
import type { AppEnv } from "../env";
import type { ListQuery } from "../ledger/types";
import { listNewest } from "./ledger-paging";

/** Entries per page the export reads from the shards (the list route's largest page). */
const EXPORT_PAGE = 200;
/** Most entries one export holds; past it, the last line gives the cursor to continue from. */
export const EXPORT_MAX = 10_000;

/**
 * The filtered records as NDJSON, newest first: one call entry per line, read page by page through
 * the same keyset cursor as the list, so memory holds one page at a time. When more match than `max`,
 * the last line is `{"nextCursor": "…"}` (pass it as `cursor` to export the rest).
 */
export function exportCalls(c: Context<AppEnv>, query: Omit<ListQuery, "limit">, max: number): Response {
  const encoder = new TextEncoder();
  let sent = 0;
  let before = query.before;
  let done = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return controller.close();
      const limit = Math.min(EXPORT_PAGE, max - sent);
      const page = await listNewest(c, { ...query, limit, ...(before ? { before } : {}) });
      sent += page.entries.length;
      const lines = page.entries.map((entry) => JSON.stringify(entry)).join("\n");
      const more = page.nextCursor !== null && page.entries.length > 0;
      if (more && sent >= max) {
        controller.enqueue(encoder.encode(`${lines}\n${JSON.stringify({ nextCursor: page.nextCursor })}\n`));
        done = true;
        return;
      }
      if (lines) controller.enqueue(encoder.encode(`${lines}\n`));
      if (!more) done = true;
      else before = { startedAt: page.entries.at(-1)!.record.startedAt, callId: page.entries.at(-1)!.record.callId };
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": `attachment; filename="toolgate-calls-${c.var.tenant.name}.ndjson"`,
      "cache-control": "no-store",
    },
  });
}
