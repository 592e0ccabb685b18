import { accessSync, constants, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** A full suite or bench writes a few hundred MB; containers often give /dev/shm only 64 MB. */
const MIN_FREE_BYTES = 1024 ** 3;

/**
 * Where a dev server whose state is thrown away after the run keeps its SQLite file: tmpfs
 * (/dev/shm) where the machine has one with room, else the temp dir. On a shared virtual disk the
 * server's writes were about half of the time per tool call, and their latency drifted by a third
 * over tens of seconds; in memory the same turns run twice as fast and steadily. Nothing that must
 * survive the machine belongs here.
 */
export function throwawayStateRoot(): { dir: string; medium: 'tmpfs' | 'disk' } {
  try {
    accessSync('/dev/shm', constants.W_OK);
    const { bavail, bsize } = statfsSync('/dev/shm');
    if (bavail * bsize >= MIN_FREE_BYTES) return { dir: '/dev/shm', medium: 'tmpfs' };
  } catch {
    // No tmpfs here.
  }
  return { dir: tmpdir(), medium: 'disk' };
}
