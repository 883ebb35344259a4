import { expect } from "vitest";

export interface Sse {
  id?: string;
  event?: string;
  data?: any;
  comment?: string;
}

/** Reads SSE frames from a response body, across several waits, until closed. */
export async function openSse(res: Response) {
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const frames: Sse[] = [];
  let buffer = "";

  /** Reads until `done` holds for the frames so far (or the timeout passes); returns them all. */
  async function until(done: (frames: Sse[]) => boolean, timeoutMs = 5_000): Promise<Sse[]> {
    const deadline = Date.now() + timeoutMs;
    while (!done(frames) && Date.now() < deadline) {
      const chunk = await Promise.race([
        reader.read(),
        new Promise<null>((r) => setTimeout(() => r(null), deadline - Date.now())),
      ]);
      if (!chunk || chunk.done) break;
      buffer += chunk.value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        frames.push(parse(buffer.slice(0, end)));
        buffer = buffer.slice(end + 2);
      }
    }
    return frames;
  }

  return {
    until,
    /** The first event, which must be `ready`. */
    async ready(): Promise<Sse> {
      const first = (await until((fs) => fs.some((f) => f.event !== undefined))).find((f) => f.event !== undefined);
      expect(first?.event).toBe("ready");
      return first!;
    },
    close: () => reader.cancel(),
  };
}

function parse(block: string): Sse {
  const frame: Sse = {};
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) frame.comment = line.slice(1).trim();
    else if (line.startsWith("id: ")) frame.id = line.slice(4);
    else if (line.startsWith("event: ")) frame.event = line.slice(7);
    else if (line.startsWith("data: ")) frame.data = JSON.parse(line.slice(6));
  }
  return frame;
}
