// How times, durations and numbers read on the pages.

export function duration(ms) {
  if (ms === undefined || ms === null) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function time(iso) {
  return iso ? new Date(iso).toLocaleString() : '';
}

export function percent(rate) {
  return `${Math.round(rate * 1000) / 10}%`;
}

export function shortJson(value) {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** A local time of day as HH:MM:SS (24 h), the same in every locale: the chart's axis reads it. */
export function clockTime(ms) {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}
