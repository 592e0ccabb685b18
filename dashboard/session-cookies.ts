/** The HttpOnly cookie that authenticates a browser: an HMAC of the token, never the token. */
export const sessionCookie = 'dt_session';
/** Readable by the page, sent back in `csrfHeader` on actions; checked against the token's HMAC. */
export const csrfCookie = 'dt_csrf';
export const csrfHeader = 'x-csrf-token';

/** Secure and SameSite=Strict: not sent over plain http (except to localhost) nor from another site. */
export const cookieOptions = { path: '/', secure: true, sameSite: 'strict', maxAge: 12 * 60 * 60 } as const;
