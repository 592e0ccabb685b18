import { derivedSecret } from './token-secrets';

test('the session and CSRF values differ from each other and from the token, and follow the token', () => {
  const token = 'unit-token-0123456789abcdefghijkl';
  const session = derivedSecret({ token, purpose: 'session' });
  const csrf = derivedSecret({ token, purpose: 'csrf' });
  expect(new Set([token, session, csrf]).size).toBe(3);
  expect(session).not.toContain(token);
  expect(derivedSecret({ token: `${token}x`, purpose: 'session' })).not.toBe(session);
});
