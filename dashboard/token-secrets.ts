import { createHmac } from 'node:crypto';

/**
 * Values derived from the token, so the browser never holds the token itself: the session cookie
 * and the CSRF token are HMACs of the token under distinct labels. Neither reveals the token, and
 * changing the token (restarting with another) invalidates both.
 */
export function derivedSecret({ token, purpose }: { token: string; purpose: 'session' | 'csrf' }): string {
  return createHmac('sha256', token).update(`durable-turns-dashboard:${purpose}`).digest('base64url');
}
