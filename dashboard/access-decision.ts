import { isLoopback } from '../codec/is-loopback';
import { secretsMatch } from '../codec/secrets-match';
import type { DashboardConfig } from './dashboard-config';
import { tokenEnvVar } from './dashboard-config';
import type { LoginSessions } from './login-sessions';
import { csrfCookie, csrfHeader, sessionCookie } from './session-cookies';

export type AccessKind = 'read' | 'action';

export interface AccessRequest {
  headers: Record<string, string | string[] | undefined>;
  cookies: Record<string, string | undefined>;
}

export type AccessDecision =
  | { allowed: true; via: 'bearer' | 'cookie' | 'loopback' }
  | { allowed: false; status: 401 | 403; message: string };

/** Who presented what: a bearer token, a live login's cookie, or nothing (a wrong one is `wrong`). */
export function credentialOf({
  request,
  token,
  sessions,
}: {
  request: AccessRequest;
  token: string | undefined;
  sessions: LoginSessions;
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
  // A cookie from before a logout, or before this process started, names no login: it is wrong.
  if (session !== undefined) return token !== undefined && sessions.get(session) ? 'cookie' : 'wrong';
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
  sessions,
}: {
  request: AccessRequest;
  config: Pick<DashboardConfig, 'token' | 'loopback'> &
    Partial<Pick<DashboardConfig, 'tls' | 'behindTlsProxy'>>;
  kind: AccessKind;
  sessions: LoginSessions;
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
  const credential = credentialOf({ request, token: config.token, sessions });
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
    if (!sameOrigin({ origin, host, scheme: schemeOf(config) }))
      return {
        allowed: false,
        status: 403,
        message: `cross-origin action refused: Origin ${origin} is not this dashboard (${host ?? 'no Host'})`,
      };
    const presented = first(request.headers[csrfHeader]);
    const expected = sessions.get(request.cookies[sessionCookie])?.csrf;
    if (presented === undefined || expected === undefined || !secretsMatch({ presented, expected }))
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

/** How browsers reach this dashboard: https when it serves TLS or sits behind a TLS proxy. */
export function schemeOf(config: Partial<Pick<DashboardConfig, 'tls' | 'behindTlsProxy'>>): 'http' | 'https' {
  return config.tls !== undefined || config.behindTlsProxy === true ? 'https' : 'http';
}

/**
 * No Origin (a script, curl), or this dashboard's own origin: the scheme browsers reach it by and
 * the Host the request was sent to (`https://127.0.0.1:8234` is another origin than `http://…`).
 */
export function sameOrigin({
  origin,
  host,
  scheme,
}: {
  origin: string | undefined;
  host: string | undefined;
  scheme: 'http' | 'https';
}): boolean {
  if (origin === undefined) return true;
  if (host === undefined) return false;
  try {
    const url = new URL(origin);
    return url.protocol === `${scheme}:` && url.host.toLowerCase() === host.toLowerCase();
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
