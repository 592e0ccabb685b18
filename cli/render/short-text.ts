/** `{"path":"a.md"}` → `{path: "a.md"}`, cut to `max` characters: call arguments on one line. */
export function shortArgs({ input, max = 60 }: { input: unknown; max?: number }): string {
  const text =
    typeof input === 'string'
      ? JSON.stringify(input)
      : (JSON.stringify(input) ?? 'undefined')
          .replace(/"([A-Za-z_$][\w$]*)":/g, '$1: ')
          .replace(/,(?=\S)/g, ', ');
  return clip({ text, max });
}

/** One line of at most `max` characters (newlines shown as ⏎), `…` where it was cut. */
export function clip({ text, max }: { text: string; max: number }): string {
  const line = text.replace(/\s*\n\s*/g, ' ⏎ ');
  return line.length <= max ? line : `${line.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * An id of up to 256 characters in at most `max`: its start and its end (where ids made of a
 * prefix and a counter differ), `…` between, so one long id does not push a table's other
 * columns away. `--json` and `show` give it whole.
 */
export function shortId(id: string, max = 40): string {
  if (id.length <= max) return id;
  const tail = Math.floor((max - 1) / 3);
  return `${id.slice(0, max - 1 - tail)}…${id.slice(-tail)}`;
}

/** `850 ms`, `1.2 s`, `3m 05s`: how long a call or a turn took. */
export function formatMs({ ms }: { ms: number }): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1_000);
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}
