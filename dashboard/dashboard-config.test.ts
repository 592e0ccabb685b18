import { dashboardConfig } from './dashboard-config';

const token = 'unit-token-0123456789abcdefghijkl';

test('on loopback it starts without a token (read-only) and without TLS', () => {
  expect(dashboardConfig({ options: {} })).toMatchObject({ host: '127.0.0.1', port: 8234, loopback: true });
});

test('beyond loopback without a token it refuses, naming the variable to set', () => {
  expect(() => dashboardConfig({ options: { host: '0.0.0.0' } })).toThrow(
    /0\.0\.0\.0, beyond loopback, without a token.*DURABLE_TURNS_DASHBOARD_TOKEN/,
  );
});

test('beyond loopback over plain http it refuses unless a TLS proxy is said to be in front', () => {
  expect(() => dashboardConfig({ options: { host: '::', token } })).toThrow(/--tls-cert and --tls-key/);
  expect(dashboardConfig({ options: { host: '::', token, behindTlsProxy: true } })).toMatchObject({
    loopback: false,
  });
  expect(
    dashboardConfig({ options: { host: '10.0.0.5', token, tls: { cert: 'c.pem', key: 'k.pem' } } }),
  ).toMatchObject({ loopback: false });
});

test('a token short enough to guess is refused', () => {
  expect(() => dashboardConfig({ options: { token: 'short' } })).toThrow(/at least 24 characters/);
});

test('the identity header setting takes a header name, matched case-blind, and never one that carries credentials', () => {
  expect(dashboardConfig({ options: { identityHeader: 'X-Forwarded-User' } }).identityHeader).toBe(
    'x-forwarded-user',
  );
  expect(() => dashboardConfig({ options: { identityHeader: 'X Forwarded User' } })).toThrow(/header name/);
  for (const identityHeader of ['Authorization', 'cookie', 'X-CSRF-Token'])
    expect(() => dashboardConfig({ options: { identityHeader } })).toThrow(/carries credentials/);
});
