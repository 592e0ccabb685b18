// How times, durations and numbers read on the pages.

export function duration(ms) {
  if (ms === undefined || ms === null) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ${Math.floor((ms % 60_000) / 1000)} s`;
  // Turns run for days: hours and minutes say enough then.
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h ${Math.floor((ms % 3_600_000) / 60_000)} min`;
  return `${Math.floor(ms / 86_400_000)} d ${Math.floor((ms % 86_400_000) / 3_600_000)} h`;
}

/**
 * A moment as `2026-12-05 07:59:32 UTC`: the one format of the dashboard and the CLI (its STARTED
 * (UTC) column), the same for every viewer whatever their locale or zone.
 */
export function time(at) {
  if (at === undefined || at === null || at === '') return '';
  return `${new Date(at).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

export function percent(rate) {
  return `${Math.round(rate * 1000) / 10}%`;
}

export function shortJson(value) {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** A time of day as HH:MM:SS (24 h, UTC, as `time` says it): the chart's axis reads it. */
export function clockTime(ms) {
  return new Date(ms).toISOString().slice(11, 19);
}

/** A file part as `[image/png shot.png, 48.2 KB]` (as `describeFile` says it): its kind and size, never its bytes. */
export function fileLabel(file) {
  const data = file.data ?? {};
  const padding = typeof data.base64 === 'string' ? (data.base64.match(/=*$/)?.[0].length ?? 0) : 0;
  const bytes = data.blob
    ? data.blob.bytes
    : typeof data.base64 === 'string'
      ? Math.floor((data.base64.length * 3) / 4) - padding
      : undefined;
  const size =
    bytes === undefined
      ? ''
      : `, ${bytes < 1000 ? `${bytes} B` : bytes < 1e6 ? `${(bytes / 1000).toFixed(1)} KB` : `${(bytes / 1e6).toFixed(1)} MB`}`;
  const where = data.url ? ` at ${data.url}` : '';
  return `[${file.mediaType}${file.filename ? ` ${file.filename}` : ''}${size}${where}]`;
}

/** A user or system message's content as text: its parts joined by blank lines, files as `fileLabel` says them. */
export function contentText(content) {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'file' ? fileLabel(part) : part.text)).join('\n\n');
}
