import { existsSync, readFileSync, readdirSync } from "node:fs";

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux); with `children`, its
 * child processes' too (a WEB_CONCURRENCY primary's workers), read from each thread's children list.
 * NaN where /proc is not there: the benches then print n/a. CPU per request is steadier than wall time
 * on a shared machine: another tenant's load slows a request without adding to its process's CPU.
 */
const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux the project runs on

function ownCpuSeconds(pid: number, reaped = false): number {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return NaN;
  // Fields after the command name (which may hold spaces) in parentheses: utime and stime are the
  // 12th and 13th; cutime and cstime (children it has waited for) the 14th and 15th.
  const text = readFileSync(stat, "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const own = Number(fields[11]) + Number(fields[12]);
  return (reaped ? own + Number(fields[13]) + Number(fields[14]) : own) / TICKS_PER_SECOND;
}

export function childPids(pid: number): number[] {
  const tasks = `/proc/${pid}/task`;
  if (!existsSync(tasks)) return [];
  const pids: number[] = [];
  for (const task of readdirSync(tasks)) {
    const file = `${tasks}/${task}/children`;
    if (!existsSync(file)) continue;
    for (const p of readFileSync(file, "utf8").trim().split(/\s+/)) if (p) pids.push(Number(p));
  }
  return pids;
}

/**
 * `children`: add the live children's CPU; `reaped`: and the children that already exited (a
 * PostgreSQL server's backends of closed connections).
 */
export function cpuSeconds(pid: number, options: { children?: boolean; reaped?: boolean } = {}): number {
  let total = ownCpuSeconds(pid, options.reaped);
  if (options.children) for (const child of childPids(pid)) total += ownCpuSeconds(child) || 0;
  return total;
}
