import type { AttemptResult } from '../schema/attempt-result';

/**
 * Cuts a result whose JSON is larger than `maxBytes` down to a text prefix with an explicit marker,
 * so one huge tool output can neither break a payload limit nor silently vanish.
 */
export function truncateResult(result: AttemptResult, maxBytes: number): AttemptResult {
  if (result.status !== 'ok' && result.status !== 'error') return result;
  const text = typeof result.content === 'string' ? result.content : JSON.stringify(result.content);
  // A UTF-16 unit is at most 3 bytes of UTF-8: most outputs are cleared without counting.
  if (text.length * 3 <= maxBytes) return result;
  const size = utf8Length(text);
  if (size <= maxBytes) return result;
  let cut = text.slice(0, maxBytes);
  while (utf8Length(cut) > maxBytes) cut = cut.slice(0, Math.floor(cut.length * 0.9));
  const content = `${cut}\n[truncated: output was ${size} bytes; the first ${utf8Length(cut)} are shown]`;
  return { ...result, content, truncated: true };
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
