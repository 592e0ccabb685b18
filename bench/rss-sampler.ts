/**
 * A process's resident memory (`VmRSS`, from /proc: read from outside, so a worker busy with its
 * turns is read on time), sampled every `intervalMs` until stopped.
 */
import { readFileSync } from 'node:fs';

/** Resident set size in bytes; undefined once the process has gone, or off Linux. */
function processRssBytes(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export function sampleRss(pid: number, intervalMs = 100) {
  const samples: number[] = [];
  const read = () => {
    const rss = processRssBytes(pid);
    if (rss !== undefined) samples.push(rss);
  };
  read();
  const timer = setInterval(read, intervalMs);
  return {
    /** The peak and median readings. */
    stop: () => {
      clearInterval(timer);
      read();
      if (samples.length === 0) throw new Error(`no RSS readings of process ${pid}`);
      const sorted = [...samples].sort((a, b) => a - b);
      return { peakBytes: sorted.at(-1) ?? 0, medianBytes: sorted[Math.floor(sorted.length / 2)] ?? 0 };
    },
  };
}

/** The median reading over `ms` of a process at rest. */
export async function restingRss(pid: number, ms = 1_000): Promise<number> {
  const sampler = sampleRss(pid);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return sampler.stop().medianBytes;
}

export const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
export const kib = (bytes: number) => Math.round(bytes / 1024);
