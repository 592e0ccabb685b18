/**
 * Headers on every answer: pages load only their own scripts and styles, cannot be framed (no
 * clickjacking of the approve button), and send no Referer (the login URL's fragment never leaves,
 * but the paths of turns need not either).
 */
export const securityHeaders = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
} as const;
