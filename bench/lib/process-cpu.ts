import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time (ms, user + system) used so far by a process and all its descendants, from /proc: wrangler
 * dev is a Node process with two workerd children, and all three work on every request. Per request,
 * it is a steadier measure than requests/s on a shared machine (another tenant's load slows the clock,
 * not the work). Linux only; elsewhere it answers NaN.
 */
export function treeCpuMs(root: number): number {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return Number.NaN;
  }
  const children = new Map<number, number[]>();
  const ticks = new Map<number, number>();
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // Fields after the command name (which may hold spaces): state ppid … utime(12th) stime(13th).
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const pid = Number(name);
      const parent = Number(fields[1]);
      children.set(parent, [...(children.get(parent) ?? []), pid]);
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // the process ended while we looked
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += ticks.get(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total * 10; // USER_HZ is 100 on Linux
}
