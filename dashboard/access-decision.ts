import { isLoopback } from '../codec/is-loopback';
import { secretsMatch } from '../codec/secrets-match';
import type { DashboardConfig } from './dashboard-config';
import { tokenEnvVar } from './dashboard-config';
import { csrfCookie, csrfHeader, sessionCookie } from './session-cookies';
import { derivedSecret } from './token-secrets';

export type AccessKind = 'read' | 'action';

export interface AccessRequest {
  headers: Record<string, string | string[] | undefined>;
  cookies: Record<string, string | undefined>;
}

export type AccessDecision =
  | { allowed: true; via: 'bearer' | 'cookie' | 'loopback' }
  | { allowed: false; status: 401 | 403; message: string };

/** Who presented what: a bearer token, the session cookie, or nothing (a wrong one is `wrong`). */
export function credentialOf({
  request,
  token,
}: {
  request: AccessRequest;
  token: string | undefined;
}): 'bearer' | 'cookie' | 'none' | 'wrong' {
  const header = request.headers.authorization;
  const authorization = Array.isArray(header) ? header[0] : header;
  const session = request.cookies[sessionCookie];
  if (authorization !== undefined) {
    const presented = /^Bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim();
    return token !== undefined && presented !== undefined && secretsMatch({ presented, expected: token })
      ? 'bearer'
      : 'wrong';
  }
  if (session !== undefined)
    return token !== undefined &&
      secretsMatch({ presented: session, expected: derivedSecret({ token, purpose: 'session' }) })
      ? 'cookie'
      : 'wrong';
  return 'none';
}

/**
 * Whether a request may go on, decided from its headers and cookies alone, before anything is
 * looked up. Reads need the token beyond loopback; actions always need it (a page on another
 * site can make a browser post to 127.0.0.1). A cookie-authenticated action also needs the CSRF
 * header: a cross-site form can make the browser send the cookie, but cannot read the CSRF value
 * nor set a custom header. An Origin, when sent, must be this dashboard's own.
 */
export function accessDecision({
  request,
  config,
  kind,
}: {
  request: AccessRequest;
  config: Pick<DashboardConfig, 'token' | 'loopback'>;
  kind: AccessKind;
}): AccessDecision {
  // DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1 reaches this port
  // with its own Host; on loopback, where reads need no token, only loopback names are served.
  const host = first(request.headers.host);
  if (config.loopback && !isLoopback({ host: hostName({ host: host ?? '' }) }))
    return {
      allowed: false,
      status: 403,
      message: `Host ${host ?? '(none)'} is not a loopback name: open the dashboard as http://127.0.0.1 or http://localhost`,
    };
  const credential = credentialOf({ request, token: config.token });
  const fix =
    config.token === undefined
      ? `this dashboard has no token: start it with ${tokenEnvVar} set (durable-turns dev makes one and prints a login URL)`
      : `send \`Authorization: Bearer <token>\` (the value of ${tokenEnvVar}), or log in at /login`;
  if (credential === 'wrong') return { allowed: false, status: 401, message: `wrong token; ${fix}` };
  if (credential === 'none') {
    if (kind === 'read' && config.loopback) return { allowed: true, via: 'loopback' };
    return {
      allowed: false,
      status: 401,
      message: `${kind === 'action' ? 'actions need the token, even on loopback' : 'this dashboard listens beyond loopback, so every request needs the token'}; ${fix}`,
    };
  }
  if (kind === 'action' && credential === 'cookie') {
    const origin = first(request.headers.origin);
    if (!sameOrigin({ origin, host }))
      return {
        allowed: false,
        status: 403,
        message: `cross-origin action refused: Origin ${origin} is not this dashboard (${host ?? 'no Host'})`,
      };
    const presented = first(request.headers[csrfHeader]);
    const expected = derivedSecret({ token: config.token ?? '', purpose: 'csrf' });
    if (presented === undefined || !secretsMatch({ presented, expected }))
      return {
        allowed: false,
        status: 403,
        message: `missing or wrong ${csrfHeader} header: a cookie-authenticated action must send the value of the ${csrfCookie} cookie (or of GET /api/session's csrfToken) in it`,
      };
  }
  return { allowed: true, via: credential };
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** No Origin (a script, curl), or an Origin whose host is the Host the request was sent to. */
export function sameOrigin({
  origin,
  host,
}: {
  origin: string | undefined;
  host: string | undefined;
}): boolean {
  if (origin === undefined) return true;
  if (host === undefined) return false;
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    // `Origin: null` (a sandboxed frame, a redirect across sites) is never this dashboard.
    return false;
  }
}

/** The name in a Host header, without its port: `127.0.0.1:8234` → `127.0.0.1`, `[::1]:80` → `::1`. */
function hostName({ host }: { host: string }): string {
  const bracketed = /^\[([^\]]+)\]/.exec(host);
  if (bracketed) return bracketed[1] ?? '';
  return host.replace(/:\d+$/, '');
}
