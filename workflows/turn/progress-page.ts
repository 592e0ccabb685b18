import type { ProgressEntry } from '../../core';

/** Entries a watcher's page holds at most. */
const maxEntries = 500;
/**
 * JSON characters a page holds at most (past its first entry): three UTF-8 bytes each at worst,
 * a page stays under the server's 2 MB limit on a query answer. Tool outputs are up to 256 KiB
 * each by default, so 500 entries of them would be far past it.
 */
const maxChars = 512 * 1024;

// Entries are values, never changed once recorded: each one's size is measured once.
const sizes = new WeakMap<ProgressEntry, number>();

function sizeOf(item: ProgressEntry): number {
  let size = sizes.get(item);
  if (size === undefined) {
    size = JSON.stringify(item).length;
    sizes.set(item, size);
  }
  return size;
}

/**
 * The entries after `after` that one answer of the progress query carries: at most 500, and no
 * more than fits in a page (always at least one, so a watcher moves on). The watcher asks again
 * at once while it is behind.
 */
export function progressPage(progress: readonly ProgressEntry[], after: number): ProgressEntry[] {
  const page: ProgressEntry[] = [];
  let chars = 0;
  for (const item of progress) {
    if (item.seq <= after) continue;
    chars += sizeOf(item);
    if (page.length > 0 && (chars > maxChars || page.length >= maxEntries)) break;
    page.push(item);
  }
  return page;
}
