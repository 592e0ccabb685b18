/**
 * What went wrong, in one line: the error's message and, after it, its causes' (`fetch failed`
 * alone does not say that the connection was refused; its cause does). Duck-typed: errors of Node
 * built-ins come from another realm under Jest, where `instanceof Error` says no.
 */
export function failureText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 4; depth++) {
    const object = typeof current === 'object' && current !== null ? current : undefined;
    const message = object && 'message' in object ? String(object.message) : String(current);
    if (message && !parts.includes(message)) parts.push(message);
    current = object && 'cause' in object ? object.cause : undefined;
  }
  return parts.join(': ');
}
