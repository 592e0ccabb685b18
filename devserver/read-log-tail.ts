import { promises as fs } from 'node:fs';
import { errorMessage } from './error-message';

const maxBytes = 64 * 1024;

/**
 * The last `lines` lines a process wrote to `file` after byte `fromOffset` (where this run began:
 * the log is appended across restarts and an old run's lines would mislead). Never throws: it is
 * used while reporting another failure.
 */
export async function readLogTail({
  file,
  fromOffset = 0,
  lines = 30,
}: {
  file: string;
  fromOffset?: number;
  lines?: number;
}): Promise<string> {
  try {
    const handle = await fs.open(file, 'r');
    try {
      const { size } = await handle.stat();
      const start = Math.max(fromOffset, size - maxBytes);
      const length = Math.max(0, size - start);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, start);
      const all = buffer.toString('utf8').split('\n');
      while (all.length > 0 && all[all.length - 1]?.trim() === '') all.pop();
      return all.slice(-lines).join('\n');
    } finally {
      await handle.close();
    }
  } catch (error) {
    return `(could not read ${file}: ${errorMessage({ error })})`;
  }
}
