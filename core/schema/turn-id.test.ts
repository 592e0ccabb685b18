import { assertTurnId, turnIdSchema } from './turn-id';

describe('turn ids', () => {
  test.each([['   '], [''], ['has space'], ['tab\there'], ['x'.repeat(257)], ['naïve']])(
    '%j is refused with a message naming the rule',
    (id) => {
      expect(() => assertTurnId(id)).toThrow(
        /^turn id .* is not valid: use 1 to 256 characters: letters, digits and/,
      );
    },
  );

  test.each([['t1'], ['conv/42:turn-7'], ['user@example.com#3'], ['a'.repeat(256)]])(
    '%j is accepted',
    (id) => {
      expect(turnIdSchema.parse(id)).toBe(id);
    },
  );

  test('a huge id is quoted by its start and length, never back whole', () => {
    const id = `${'x'.repeat(10_000)} `;
    let message = '';
    try {
      assertTurnId(id);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('… (10001 characters) is not valid');
    expect(message.length).toBeLessThan(300);
  });
});
