/** `95_000` → `1m 35s`: for progress lines a person reads while waiting. */
export function formatDuration({ ms }: { ms: number }): string {
  const totalSeconds = Math.round(ms / 1000);
  const minutes = Math.floor(totalSeconds / 60);
  const seconds = totalSeconds % 60;
  return minutes > 0 ? `${minutes}m ${seconds}s` : `${seconds}s`;
}
