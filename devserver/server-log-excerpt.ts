const causeLines = 8;
const tailLines = 20;
/** A Go panic's message and the lines up to its first goroutine dump. */
const panicLine = /^panic: |^fatal error: /;
const errorLine = /\blevel=(ERROR|FATAL)\b|^Error: /;

/**
 * The part of a failed server run's log a person needs: its error lines and a panic's message
 * first, then its last lines. A server that panics prints a goroutine dump of hundreds of lines
 * after the cause, so its last lines alone are only stack frames (a CI run once failed showing
 * nothing else).
 */
export function serverLogExcerpt(log: string): string {
  const lines = log.split('\n');
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === '') lines.pop();
  const tailStart = Math.max(0, lines.length - tailLines);
  const causes: string[] = [];
  for (let index = 0; index < tailStart && causes.length < causeLines; index++) {
    const line = lines[index] ?? '';
    if (errorLine.test(line)) causes.push(line);
    else if (panicLine.test(line)) {
      // The panic's message may run on for a few lines before the dump starts.
      for (let next = index; next < tailStart && causes.length < causeLines; next++) {
        const text = lines[next] ?? '';
        if (text.trim() === '' || text.startsWith('goroutine ')) break;
        causes.push(text);
        index = next;
      }
    }
  }
  const tail = lines.slice(tailStart);
  if (causes.length === 0) return tail.join('\n');
  return [...causes, tailStart > 0 ? '…' : '', ...tail].filter((line) => line !== '').join('\n');
}
