import { accessSync, constants } from 'node:fs';
import { tmpdir } from 'node:os';

/**
 * Where a dev server whose state is thrown away after the run keeps its SQLite file: tmpfs
 * (/dev/shm) where the machine has one, else the temp dir. On a shared virtual disk the server's
 * writes were about half of the time per tool call, and their latency drifted by a third over tens
 * of seconds; in memory the same turns run twice as fast and steadily. Nothing that must survive
 * the machine belongs here.
 */
export function throwawayStateRoot(): { dir: string; medium: 'tmpfs' | 'disk' } {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return { dir: '/dev/shm', medium: 'tmpfs' };
  } catch {
    return { dir: tmpdir(), medium: 'disk' };
  }
}
