import { ApiError } from './api-error';
import { approverOf, tokenHolder } from './approver-identity';

const proxied = { identityHeader: 'x-forwarded-user' };

test('without an identity header configured, a decision is by the token holder, whatever the request says', () => {
  expect(approverOf({ headers: { 'x-forwarded-user': 'mallory' }, config: {} })).toBe(tokenHolder);
  expect(tokenHolder).toBe('dashboard token holder');
});

test("with one, the approver is the header's value as the proxy set it", () => {
  expect(approverOf({ headers: { 'x-forwarded-user': ' alice@example.com ' }, config: proxied })).toBe(
    'alice@example.com',
  );
});

test('a request without the header, or with a blank one, is refused (403) rather than guessed', () => {
  for (const headers of [{}, { 'x-forwarded-user': '' }, { 'x-forwarded-user': '   ' }]) {
    const refused = (() => {
      try {
        return approverOf({ headers, config: proxied });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({
      status: 403,
      message: expect.stringMatching(/x-forwarded-user header.*this request has none/),
    });
  }
});

test('a name longer than the journal keeps is a 400', () => {
  expect(() => approverOf({ headers: { 'x-forwarded-user': 'a'.repeat(201) }, config: proxied })).toThrow(
    /longer than 200 characters/,
  );
});
