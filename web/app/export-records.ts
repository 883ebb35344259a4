import type { CallQuery } from "../../src/contract";
import { notice, replace } from "./dom";
import type { Session } from "./session";

let lastUrl: string | undefined;

/**
 * Downloads the records matching `query` as NDJSON. The key goes in a header (never a URL), so the
 * file is fetched here and handed to the browser as a blob.
 */
export async function downloadExport(
  session: Session,
  query: CallQuery,
  out: HTMLElement,
  tenant: string,
): Promise<void> {
  replace(out, notice("Exporting…"));
  try {
    const { cursor: _cursor, limit: _limit, ...filters } = query;
    const response = await session.client.exportRecords(filters);
    const text = await response.text();
    const lines = text.split("\n").filter((line) => line && !line.startsWith('{"nextCursor"'));
    const more = text.includes('{"nextCursor"');
    const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
    const link = document.createElement("a");
    link.href = url;
    link.download = `toolgate-calls-${tenant}.ndjson`;
    link.click();
    // Kept until the next export: revoking at once can cancel a download the browser has not read yet.
    if (lastUrl) URL.revokeObjectURL(lastUrl);
    lastUrl = url;
    const rest = more ? " (the first 10,000; narrow the filters for the rest)" : "";
    replace(out, notice(`Exported ${lines.length} call${lines.length === 1 ? "" : "s"}${rest}.`));
  } catch (error) {
    replace(out, notice(`Could not export: ${(error as Error).message}`, "error"));
  }
}
