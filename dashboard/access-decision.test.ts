import { type AccessRequest, accessDecision } from './access-decision';
import { LoginSessions } from './login-sessions';

const token = 'unit-token-0123456789abcdefghijkl';
const host = '127.0.0.1:8234';
const request = (
  headers: AccessRequest['headers'] = {},
  cookies: AccessRequest['cookies'] = {},
): AccessRequest => ({
  headers: { host, ...headers },
  cookies,
});
const sessions = new LoginSessions();
const login = sessions.create();
const session = { dt_session: login.id };
const csrf = login.csrf;
const decide = (args: Omit<Parameters<typeof accessDecision>[0], 'sessions'>) =>
  accessDecision({ ...args, sessions });

describe('reads', () => {
  test('on loopback a read needs no token', () => {
    expect(decide({ request: request(), config: { token, loopback: true }, kind: 'read' })).toEqual({
      allowed: true,
      via: 'loopback',
    });
  });

  test('beyond loopback a read without the token is a 401 that says how to send it', () => {
    const decision = decide({ request: request(), config: { token, loopback: false }, kind: 'read' });
    expect(decision).toMatchObject({
      allowed: false,
      status: 401,
      message: expect.stringMatching(/Authorization: Bearer/),
    });
  });

  test('a wrong token is a 401 even where none is needed', () => {
    for (const headers of [{ authorization: 'Bearer nope' }, { authorization: token }])
      expect(
        decide({ request: request(headers), config: { token, loopback: true }, kind: 'read' }),
      ).toMatchObject({
        allowed: false,
        status: 401,
      });
    expect(
      decide({
        request: request({}, { dt_session: 'forged' }),
        config: { token, loopback: true },
        kind: 'read',
      }),
    ).toMatchObject({ allowed: false, status: 401 });
  });

  test("the session cookie holds a login's random id, not the token: the token as cookie is refused, and so is an id after logout", () => {
    expect(
      decide({
        request: request({}, { dt_session: token }),
        config: { token, loopback: false },
        kind: 'read',
      }),
    ).toMatchObject({ allowed: false });
    expect(
      decide({ request: request({}, session), config: { token, loopback: false }, kind: 'read' }),
    ).toEqual({ allowed: true, via: 'cookie' });
    const other = sessions.create();
    expect(other.id).not.toBe(login.id);
    sessions.delete(other.id);
    expect(
      decide({
        request: request({}, { dt_session: other.id }),
        config: { token, loopback: false },
        kind: 'read',
      }),
    ).toMatchObject({ allowed: false, status: 401 });
  });
});

describe('actions', () => {
  test('an action without the token is a 401 even on loopback', () => {
    expect(decide({ request: request(), config: { token, loopback: true }, kind: 'action' })).toMatchObject({
      allowed: false,
      status: 401,
      message: expect.stringMatching(/even on loopback/),
    });
  });

  test('a dashboard without a token refuses every action, saying to set DURABLE_TURNS_DASHBOARD_TOKEN', () => {
    const decision = decide({
      request: request({ authorization: 'Bearer anything-at-all-anything-at' }),
      config: { token: undefined, loopback: true },
      kind: 'action',
    });
    expect(decision).toMatchObject({
      allowed: false,
      status: 401,
      message: expect.stringMatching(/DURABLE_TURNS_DASHBOARD_TOKEN/),
    });
  });

  test('a bearer token needs no CSRF header: a browser never adds one by itself', () => {
    expect(
      decide({
        request: request({ authorization: `Bearer ${token}` }),
        config: { token, loopback: true },
        kind: 'action',
      }),
    ).toEqual({ allowed: true, via: 'bearer' });
  });

  test('a cookie session needs the CSRF header with the right value', () => {
    const config = { token, loopback: true };
    expect(decide({ request: request({}, session), config, kind: 'action' })).toMatchObject({
      status: 403,
    });
    expect(
      decide({ request: request({ 'x-csrf-token': 'guess' }, session), config, kind: 'action' }),
    ).toMatchObject({ status: 403 });
    // A value planted as the csrf cookie by a sibling site does not help: the header is checked against the token.
    expect(
      decide({
        request: request({ 'x-csrf-token': 'planted' }, { ...session, dt_csrf: 'planted' }),
        config,
        kind: 'action',
      }),
    ).toMatchObject({ status: 403 });
    expect(decide({ request: request({ 'x-csrf-token': csrf }, session), config, kind: 'action' })).toEqual({
      allowed: true,
      via: 'cookie',
    });
  });

  test('a cookie session from another origin is refused, even with the CSRF value', () => {
    const config = { token, loopback: true };
    // The scheme counts: an https page on this host and port is another origin than this http dashboard.
    for (const origin of ['http://evil.example', 'null', 'http://127.0.0.1:9999', `https://${host}`])
      expect(
        decide({
          request: request({ 'x-csrf-token': csrf, origin }, session),
          config,
          kind: 'action',
        }),
      ).toMatchObject({ allowed: false, status: 403, message: expect.stringMatching(/cross-origin/) });
    expect(
      decide({
        request: request({ 'x-csrf-token': csrf, origin: `http://${host}` }, session),
        config,
        kind: 'action',
      }),
    ).toMatchObject({ allowed: true });
  });
});

describe('DNS rebinding', () => {
  test('on loopback, a request for another host name is refused even for reads', () => {
    for (const other of ['evil.example:8234', 'evil.example', '192.168.1.4:8234'])
      expect(
        decide({
          request: request({ host: other }),
          config: { token, loopback: true },
          kind: 'read',
        }),
      ).toMatchObject({ allowed: false, status: 403, message: expect.stringMatching(/not a loopback name/) });
    for (const own of ['localhost:8234', '127.0.0.1', '[::1]:8234'])
      expect(
        decide({ request: request({ host: own }), config: { token, loopback: true }, kind: 'read' }),
      ).toMatchObject({ allowed: true });
  });
});
