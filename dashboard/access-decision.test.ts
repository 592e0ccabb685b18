import { type AccessRequest, accessDecision } from './access-decision';
import { derivedSecret } from './token-secrets';

const token = 'unit-token-0123456789abcdefghijkl';
const host = '127.0.0.1:8234';
const request = (
  headers: AccessRequest['headers'] = {},
  cookies: AccessRequest['cookies'] = {},
): AccessRequest => ({
  headers: { host, ...headers },
  cookies,
});
const session = { dt_session: derivedSecret({ token, purpose: 'session' }) };
const csrf = derivedSecret({ token, purpose: 'csrf' });

describe('reads', () => {
  test('on loopback a read needs no token', () => {
    expect(accessDecision({ request: request(), config: { token, loopback: true }, kind: 'read' })).toEqual({
      allowed: true,
      via: 'loopback',
    });
  });

  test('beyond loopback a read without the token is a 401 that says how to send it', () => {
    const decision = accessDecision({ request: request(), config: { token, loopback: false }, kind: 'read' });
    expect(decision).toMatchObject({
      allowed: false,
      status: 401,
      message: expect.stringMatching(/Authorization: Bearer/),
    });
  });

  test('a wrong token is a 401 even where none is needed', () => {
    for (const headers of [{ authorization: 'Bearer nope' }, { authorization: token }])
      expect(
        accessDecision({ request: request(headers), config: { token, loopback: true }, kind: 'read' }),
      ).toMatchObject({
        allowed: false,
        status: 401,
      });
    expect(
      accessDecision({
        request: request({}, { dt_session: 'forged' }),
        config: { token, loopback: true },
        kind: 'read',
      }),
    ).toMatchObject({ allowed: false, status: 401 });
  });

  test('the session cookie holds an HMAC of the token, not the token: the token as cookie is refused', () => {
    expect(
      accessDecision({
        request: request({}, { dt_session: token }),
        config: { token, loopback: false },
        kind: 'read',
      }),
    ).toMatchObject({ allowed: false });
    expect(
      accessDecision({ request: request({}, session), config: { token, loopback: false }, kind: 'read' }),
    ).toEqual({ allowed: true, via: 'cookie' });
  });
});

describe('actions', () => {
  test('an action without the token is a 401 even on loopback', () => {
    expect(
      accessDecision({ request: request(), config: { token, loopback: true }, kind: 'action' }),
    ).toMatchObject({
      allowed: false,
      status: 401,
      message: expect.stringMatching(/even on loopback/),
    });
  });

  test('a dashboard without a token refuses every action, saying to set DURABLE_TURNS_DASHBOARD_TOKEN', () => {
    const decision = accessDecision({
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
      accessDecision({
        request: request({ authorization: `Bearer ${token}` }),
        config: { token, loopback: true },
        kind: 'action',
      }),
    ).toEqual({ allowed: true, via: 'bearer' });
  });

  test('a cookie session needs the CSRF header with the right value', () => {
    const config = { token, loopback: true };
    expect(accessDecision({ request: request({}, session), config, kind: 'action' })).toMatchObject({
      status: 403,
    });
    expect(
      accessDecision({ request: request({ 'x-csrf-token': 'guess' }, session), config, kind: 'action' }),
    ).toMatchObject({ status: 403 });
    // A value planted as the csrf cookie by a sibling site does not help: the header is checked against the token.
    expect(
      accessDecision({
        request: request({ 'x-csrf-token': 'planted' }, { ...session, dt_csrf: 'planted' }),
        config,
        kind: 'action',
      }),
    ).toMatchObject({ status: 403 });
    expect(
      accessDecision({ request: request({ 'x-csrf-token': csrf }, session), config, kind: 'action' }),
    ).toEqual({
      allowed: true,
      via: 'cookie',
    });
  });

  test('a cookie session from another origin is refused, even with the CSRF value', () => {
    const config = { token, loopback: true };
    for (const origin of ['http://evil.example', 'null', 'http://127.0.0.1:9999'])
      expect(
        accessDecision({
          request: request({ 'x-csrf-token': csrf, origin }, session),
          config,
          kind: 'action',
        }),
      ).toMatchObject({ allowed: false, status: 403, message: expect.stringMatching(/cross-origin/) });
    expect(
      accessDecision({
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
        accessDecision({
          request: request({ host: other }),
          config: { token, loopback: true },
          kind: 'read',
        }),
      ).toMatchObject({ allowed: false, status: 403, message: expect.stringMatching(/not a loopback name/) });
    for (const own of ['localhost:8234', '127.0.0.1', '[::1]:8234'])
      expect(
        accessDecision({ request: request({ host: own }), config: { token, loopback: true }, kind: 'read' }),
      ).toMatchObject({ allowed: true });
  });
});
