import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented secret with the expected one in constant time: both are hashed first, so
 * neither the content nor the length of the expected value shows in the time taken.
 */
export function secretsMatch({ presented, expected }: { presented: string; expected: string }): boolean {
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Values derived from the token, so the browser never holds the token itself: the session cookie
 * and the CSRF token are HMACs of the token under distinct labels. Neither reveals the token, and
 * changing the token (restarting with another) invalidates both.
 */
export function derivedSecret({ token, purpose }: { token: string; purpose: 'session' | 'csrf' }): string {
  return createHmac('sha256', token).update(`durable-turns-dashboard:${purpose}`).digest('base64url');
}
