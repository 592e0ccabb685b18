/**
 * Samples a process's resident memory every `intervalMs` (from /proc, so a worker busy with its
 * turns is read on time) until stopped: its peak, median and last reading.
 */
import { processRssBytes } from './proc-stats';

export interface RssReading {
  peakBytes: number;
  medianBytes: number;
  firstBytes: number;
  lastBytes: number;
  samples: number;
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
    stop: (): RssReading => {
      clearInterval(timer);
      read();
      if (samples.length === 0) throw new Error(`no RSS readings of process ${pid}`);
      const sorted = [...samples].sort((a, b) => a - b);
      return {
        peakBytes: sorted[sorted.length - 1] ?? 0,
        medianBytes: sorted[Math.floor(sorted.length / 2)] ?? 0,
        firstBytes: samples[0] ?? 0,
        lastBytes: samples[samples.length - 1] ?? 0,
        samples: samples.length,
      };
    },
  };
}

/** The median reading over `ms` of a process at rest. */
export async function restingRss(pid: number, ms = 1_000): Promise<RssReading> {
  const sampler = sampleRss(pid);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return sampler.stop();
}

export const mib = (bytes: number) => Math.round((bytes / 2 ** 20) * 10) / 10;
export const kib = (bytes: number) => Math.round(bytes / 1024);
