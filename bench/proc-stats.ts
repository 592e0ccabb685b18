/**
 * What Linux's /proc says about a process: CPU time and resident memory. Read from outside, so a
 * busy process is measured as it is (its own timers would fire late exactly when it is busiest).
 */

import { readFileSync } from 'node:fs';

/** Linux clock ticks per second (`getconf CLK_TCK`; 100 on every common kernel). */
export const CLOCK_TICKS = 100;

/** CPU seconds (user + system) a process has used so far, from /proc; undefined elsewhere. */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/**
 * A process's resident set size in bytes (`VmRSS`: the number `process.memoryUsage().rss` reads
 * for its own process), from /proc; undefined once it has gone or off Linux.
 */
export function processRssBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
