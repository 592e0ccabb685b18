import { isIP } from 'node:net';

/**
 * Whether a listen address only takes connections from this machine: `localhost`, 127.0.0.0/8
 * or ::1. Anything else (0.0.0.0, ::, a LAN or public address, another name) counts as beyond
 * loopback, where every request needs the token.
 */
export function isLoopback({ host }: { host: string }): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./.test(bare);
  return false;
}
