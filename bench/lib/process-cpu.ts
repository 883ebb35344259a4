import { readdirSync, readFileSync } from "node:fs";

/**
 * CPU time (ms, user + system) used so far by a process and all its descendants, from /proc: wrangler
 * dev is a Node process with two workerd children, and all three work on every request. Per request,
 * it is a steadier measure than requests/s on a shared machine (another tenant's load slows the clock,
 * not the work). Linux only; elsewhere it answers NaN.
 */
export function treeCpuMs(root: number): number {
  const tree = processTree();
  if (!tree) return Number.NaN;
  let total = 0;
  for (const pid of descendants(tree.children, root)) total += tree.ticks.get(pid) ?? 0;
  return total * 10; // USER_HZ is 100 on Linux
}

/**
 * The same to the nanosecond (the time each thread of the tree ran, from /proc/<pid>/task/<tid>/schedstat),
 * for one request: treeCpuMs counts 10 ms ticks.
 */
export function treeCpuPreciseMs(root: number): number {
  const tree = processTree();
  if (!tree) return Number.NaN;
  let ns = 0;
  for (const pid of descendants(tree.children, root)) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`))
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the process or thread ended while we looked
    }
  }
  return ns / 1e6;
}

function descendants(children: Map<number, number[]>, root: number): number[] {
  const found: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    found.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return found;
}

function processTree(): { children: Map<number, number[]>; ticks: Map<number, number> } | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
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
  return { children, ticks };
}
