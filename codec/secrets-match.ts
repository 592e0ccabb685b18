import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented secret with the expected one in constant time: both are hashed first, so
 * neither the content nor the length of the expected value shows in the time taken. The codec
 * server checks its token with it, and the dashboard its token, sessions and cursors.
 */
export function secretsMatch({ presented, expected }: { presented: string; expected: string }): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}
