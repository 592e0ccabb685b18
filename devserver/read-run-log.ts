import { promises as fs } from 'node:fs';
import { errorMessage } from './error-message';

const maxBytes = 256 * 1024;

/**
 * What a process wrote to `file` after byte `fromOffset` (where this run began: the log is
 * appended across restarts and an old run's lines would mislead), at most its last 256 KiB.
 * Never throws: it is used while reporting another failure.
 */
export async function readRunLog({
  file,
  fromOffset = 0,
}: {
  file: string;
  fromOffset?: number;
}): Promise<string> {
  try {
    const handle = await fs.open(file, 'r');
    try {
      const { size } = await handle.stat();
      const start = Math.max(fromOffset, size - maxBytes);
      const length = Math.max(0, size - start);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, start);
      return buffer.toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    return `(could not read ${file}: ${errorMessage({ error })})`;
  }
}
