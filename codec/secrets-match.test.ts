import { secretsMatch } from './secrets-match';

test('secrets match only when equal, whatever their lengths', () => {
  expect(secretsMatch({ presented: 'abc', expected: 'abc' })).toBe(true);
  expect(secretsMatch({ presented: 'abd', expected: 'abc' })).toBe(false);
  expect(secretsMatch({ presented: 'ab', expected: 'abc' })).toBe(false);
  expect(secretsMatch({ presented: '', expected: 'abc' })).toBe(false);
});
